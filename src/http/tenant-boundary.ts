import type { Request } from 'express';
import type { Operation, Tenancy } from '../contract/operations.js';
import { ApiError } from '../errors.js';
import type { SessionRegistry } from '../harness/sessions.js';
import { queryOf, type RequestState } from './request-state.js';

/** What a tenant may do, as every refusal says it. */
const TENANT_MAY =
  'a tenant may create sessions (POST /__admin/sessions), list and delete its own (GET, DELETE /__admin/sessions), ' +
  'administer each of its own at /sessions/{id}/__admin/..., and read or clear its runs\u2019 reports (/__admin/report?run=)';

const forbidden = (message: string) => new ApiError('adminForbidden', `Forbidden: ${message}`);

/** 403 to a tenant on a session that is not its own, saying what it may do. */
export const notTenantsSession = (id: string, tenant: string): ApiError =>
  forbidden(`session "${id}" is not one of tenant "${tenant}"\u2019s sessions; ${TENANT_MAY}`);

/**
 * The admin API's tenant boundary (`--tenants`), the spec router's `authorize` for the admin
 * operations: a request with a tenant's token may call an operation only where the operation's
 * `x-tenant` allows (`contract/operations.ts` lists the values), and gets 403 `adminForbidden`
 * saying what it may do otherwise, before the request is read further or anything changes. The
 * operator's token, and an admin API without tokens, pass. An operation that declares nothing is
 * the operator's alone. Which sessions a tenant lists and deletes at the root is the sessions
 * handlers' to narrow (they see the tenant on the operation context).
 */
export function createTenantBoundary(
  sessions: SessionRegistry,
): (operation: Operation, state: RequestState, req: Request) => ApiError | undefined {
  return (operation, state, req) => {
    const space = state.tenant;
    if (space === undefined) return undefined;
    const tenancy: Tenancy = operation.tenancy ?? 'operator';
    if (tenancy === 'open') return undefined;
    const name = space.tenant.name;
    const call = `${operation.operationId} (${operation.method.toUpperCase()} ${operation.path})`;
    if (tenancy === 'operator') {
      return forbidden(
        `${call} is the operator\u2019s alone (ADMIN_TOKEN), not tenant "${name}"\u2019s; ${TENANT_MAY}`,
      );
    }
    const id = state.served().id;
    if (id !== undefined) {
      if (sessions.peek(id)?.owner === name) return undefined;
      return notTenantsSession(id, name);
    }
    if (tenancy === 'tenant-creatable') return undefined;
    if (tenancy === 'own-session-or-run' && queryOf(req).run !== undefined) return undefined;
    return forbidden(
      `${call} on the root instance is the operator\u2019s (ADMIN_TOKEN), not tenant "${name}"\u2019s; call it on a session of its own (/sessions/{id}${operation.path})${tenancy === 'own-session-or-run' ? ' or for one of its runs (?run=<label>)' : ''}; ${TENANT_MAY}`,
    );
  };
}
