import { ApiError } from '../errors.js';
import type { Fleet } from './fleet.js';

/**
 * Draining a replica (`POST /__admin/fleet/drain`), as an operator does before taking it away:
 * from then on it refuses to create sessions with a 503 `replicaDraining` and `Retry-After`, so a
 * balancer sends the creation to another replica, while it keeps serving the sessions it owns and
 * forwarding the others'. A drain lasts as long as the process: a restarted replica creates again.
 */

/** Seconds a client (or balancer) is told to wait before it asks to create a session again. */
const DRAINING_RETRY_AFTER_S = 1;

/** Drains `fleet`'s replica; `notInFleet` (409) for a fake started without `--fleet-peers`. */
export function drainReplica(fleet: Fleet | undefined): { ordinal: number; draining: true } {
  if (fleet === undefined)
    throw new ApiError(
      'notInFleet',
      'this fake is not a fleet replica (started without --fleet-peers): there is nothing to drain',
    );
  fleet.drain();
  return { ordinal: fleet.ordinal, draining: true };
}

/** The answer to a session creation on a drained replica, with its `Retry-After`. */
export function drainingRefusal(fleet: Fleet): ApiError {
  const refusal = new ApiError(
    'replicaDraining',
    `replica ${fleet.ordinal} is draining and creates no more sessions; create it on another replica`,
  );
  refusal.retryAfter = DRAINING_RETRY_AFTER_S;
  return refusal;
}
