import type { OperationTable } from '../../contract/operation-handler.js';
import type { AdminOperationId } from '../../contract/operation-ids.js';
import type { RateLimitInput } from '../../harness/controls/rate-limits.js';
import type { ScenarioInput } from '../../harness/controls/scenarios.js';
import type { Instance } from '../../harness/instance/instance.js';
import { type ControlsOf, done, removedOrNotFound } from './admin-answers.js';

/**
 * The admin calls for trouble a test switches on: rate limits and scenarios (faults are in
 * `admin-handlers.ts`), adapting the instance's controls as the other admin calls do.
 */
type TroubleOperationId = Extract<
  AdminOperationId,
  | 'createRateLimit'
  | 'listRateLimits'
  | 'clearRateLimits'
  | 'deleteRateLimit'
  | 'listScenarios'
  | 'applyScenario'
  | 'clearScenarios'
>;

export function createTroubleHandlers(controls: ControlsOf): OperationTable<TroubleOperationId, Instance> {
  return {
    createRateLimit: (context) => ({
      status: 201,
      body: { id: controls(context).addRateLimit(context.request.body as RateLimitInput) },
    }),

    listRateLimits: (context) => ({ status: 200, body: { rateLimits: controls(context).rateLimits() } }),

    clearRateLimits: (context) => {
      controls(context).clearRateLimits();
      return done;
    },

    deleteRateLimit: (context) => {
      const id = String(context.request.params.rateLimitId);
      return removedOrNotFound(controls(context).removeRateLimit(id), 'rate limit', id);
    },

    listScenarios: (context) => ({ status: 200, body: controls(context).scenarios() }),

    applyScenario: (context) => ({
      status: 201,
      body: { id: controls(context).applyScenario(context.request.body as ScenarioInput) },
    }),

    clearScenarios: (context) => {
      controls(context).clearScenarios();
      return done;
    },
  };
}
