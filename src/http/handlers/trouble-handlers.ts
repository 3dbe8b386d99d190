import type { OperationTable } from '../../contract/operation-handler.js';
import type { AdminOperationId } from '../../contract/operation-ids.js';
import { ApiError } from '../../errors.js';
import type { Instance } from '../../harness/instance.js';
import type { RateLimitInput } from '../../harness/rate-limits.js';
import type { StepChecks } from '../../harness/scenario-steps.js';

const done = { status: 200, body: { success: true } } as const;

/**
 * The admin calls for trouble a test switches on: rate limits and scenarios (faults are in
 * `admin-handlers.ts`). `checks`: the spec's checks of the faults and limits a scenario's steps
 * carry (the admin API's own, so a step is checked as its call would be).
 */
/** The admin operations of trouble: rate limits and scenarios. */
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

export function createTroubleHandlers(checks: StepChecks): OperationTable<TroubleOperationId, Instance> {
  return {
    createRateLimit: (context) => ({
      status: 201,
      body: { id: context.instance.rateLimits.add(context.request.body as RateLimitInput) },
    }),

    listRateLimits: (context) => ({ status: 200, body: { rateLimits: context.instance.rateLimits.list() } }),

    clearRateLimits: (context) => {
      context.instance.rateLimits.clear();
      return done;
    },

    deleteRateLimit: (context) => {
      const id = String(context.request.params.rateLimitId);
      if (!context.instance.rateLimits.delete(id))
        throw new ApiError('routeNotFound', `no rate limit with id "${id}"`);
      return done;
    },

    listScenarios: (context) => ({ status: 200, body: context.instance.scenarios.list() }),

    applyScenario: (context) => ({
      status: 201,
      body: { id: context.instance.scenarios.apply(context.request.body as Record<string, unknown>, checks) },
    }),

    clearScenarios: (context) => {
      context.instance.scenarios.clear();
      return done;
    },
  };
}
