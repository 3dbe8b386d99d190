import type { RequestHandler } from 'express';
import type { ScenarioRequest } from '../harness/controls/scenarios.js';
import { subjectOf } from './rate-limiter.js';
import { stateOf } from './request-state.js';

/**
 * The applied scenarios' hooks on vendor API requests (`harness/controls/scenarios.ts`), after the body is
 * read and before rate limits and faults (so what a step installs on a request applies to it): on
 * arrival, then once its answer's status is known. An instance without scenarios pays one check.
 */
export function createScenarioHooks(): RequestHandler {
  return (req, res, next) => {
    const state = stateOf(res);
    const instance = state.served();
    const { scenarios } = instance;
    if (!scenarios.active) {
      next();
      return;
    }
    const request: ScenarioRequest = {
      method: req.method,
      path: state.path,
      token: subjectOf(req, instance).token,
    };
    const marks = scenarios.arrive(request);
    const answered = () => {
      if (marks) state.marks = [...(state.marks ?? []), ...marks];
      scenarios.answered(request, state.operationId, res.statusCode);
    };
    next();
    // Answered before `next` returned: the journal records it when this returns, so now.
    if (res.writableEnded) answered();
    else res.once('finish', answered);
  };
}
