import type { OperationContext } from '../../contract/operation-handler.js';
import { ApiError } from '../../errors.js';
import type { Instance } from '../../harness/instance/instance.js';
import type { InstanceControls } from '../../harness/instance/instance-controls.js';

/** What the admin calls that change something answer. */
export const done = { status: 200, body: { success: true } } as const;

/** The controls of the instance a request was addressed to. */
export type ControlsOf = (context: OperationContext<Instance>) => InstanceControls;

/** `done`, or a 404 `routeNotFound` when `removed` is false: nothing of that kind has that id. */
export function removedOrNotFound(removed: boolean, what: string, id: string): typeof done {
  if (!removed) throw new ApiError('routeNotFound', `no ${what} with id "${id}"`);
  return done;
}
