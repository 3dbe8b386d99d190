import { ApiError } from '../errors.js';
import type { OperationHandler } from './operation-handler.js';
import type { Operation } from './operations.js';
import type { OpenApiDocument } from './spec-document.js';

/**
 * Answers operations that are in the spec but have no stateful handler (for example one a team
 * adds to its copy of the spec).
 */
export function createSpecFallback(_document: OpenApiDocument): (operation: Operation) => OperationHandler {
  return (operation) => () => {
    throw new ApiError('routeNotFound', `no handler for ${operation.operationId}`);
  };
}
