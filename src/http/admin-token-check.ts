import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { ApiError } from '../errors.js';

const digest = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/**
 * Protects the admin API when `adminToken` is set: the call needs `Authorization: Bearer <token>`,
 * or it gets 401 `adminUnauthorized`. Both sides are hashed first so the comparison is
 * constant-time whatever the lengths. Without a token every call passes (the admin API is open,
 * the usual case inside a test network; the start-up log says so).
 */
export function createAdminAuth(adminToken: string | undefined): RequestHandler {
  const check = createAdminAuthCheck(adminToken);
  return (req, _res, next) => next(check(req));
}

/** The same test as a function: the error a request would get, or undefined when it passes. */
export function createAdminAuthCheck(adminToken: string | undefined): (req: Request) => ApiError | undefined {
  if (adminToken === undefined) return () => undefined;
  const expected = digest(adminToken);
  return (req) => {
    const match = /^Bearer[ \t]+(.+)$/i.exec(req.headers.authorization ?? '');
    const given = match?.[1]?.trim();
    if (given !== undefined && timingSafeEqual(digest(given), expected)) return undefined;
    const why = given === undefined ? 'missing Authorization: Bearer <ADMIN_TOKEN>' : 'wrong admin token';
    return new ApiError('adminUnauthorized', `Invalid admin token: ${why}`);
  };
}
