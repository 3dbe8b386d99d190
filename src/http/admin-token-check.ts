import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { ApiError } from '../errors.js';
import type { TenantRegistry, TenantSpace } from '../harness/tenants.js';
import { stateOf } from './request-state.js';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** Who an admin request comes from: the operator (`tenant` undefined) or a tenant. */
export interface AdminCaller {
  tenant: TenantSpace | undefined;
}

const OPERATOR: AdminCaller = Object.freeze({ tenant: undefined });

/**
 * Protects the admin API when `adminToken` is set: the call needs `Authorization: Bearer <token>`,
 * the operator's or (with `--tenants`) a tenant's, or it gets 401 `adminUnauthorized`. A tenant's
 * token marks the request as the tenant's (`RequestState.tenant`), which the spec's `x-tenant`
 * then bounds (`tenant-boundary.ts`). Tokens are hashed first so the comparisons are
 * constant-time whatever the lengths. Without a token every call passes as the operator's (the
 * admin API is open, the usual case inside a test network; the start-up log says so).
 */
export function createAdminAuth(adminToken: string | undefined, tenants?: TenantRegistry): RequestHandler {
  const check = createAdminAuthCheck(adminToken, tenants);
  return (req, res, next) => {
    const caller = check(req);
    if (caller instanceof ApiError) {
      next(caller);
      return;
    }
    stateOf(res).tenant = caller.tenant;
    next();
  };
}

/** The same test as a function: the caller, or the error a request would get. */
export function createAdminAuthCheck(
  adminToken: string | undefined,
  tenants?: TenantRegistry,
): (req: Request) => AdminCaller | ApiError {
  if (adminToken === undefined) return () => OPERATOR;
  const expected = digest(adminToken);
  return (req) => {
    const match = /^Bearer[ \t]+(.+)$/i.exec(req.headers.authorization ?? '');
    const given = match?.[1]?.trim();
    if (given !== undefined) {
      if (timingSafeEqual(digest(given), expected)) return OPERATOR;
      const tenant = tenants?.identify(given);
      if (tenant !== undefined) return { tenant };
    }
    const why = given === undefined ? 'missing Authorization: Bearer <ADMIN_TOKEN>' : 'wrong admin token';
    return new ApiError('adminUnauthorized', `Invalid admin token: ${why}`);
  };
}
