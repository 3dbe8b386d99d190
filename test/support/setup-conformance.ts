/**
 * vitest setup file: every supertest response in the suite (`supertest(app)`, `supertest(url)`
 * and agents alike) is checked against the spec the server serves at `/openapi.json`. A response
 * that breaks it fails the request's promise (or `end` callback) with a ConformanceError naming
 * the operation, the location in the body and the rule.
 *
 * Not checked: `/openapi.*` itself and the fake's pages (`/`, `/favicon.ico`, `/docs`, the
 * inspector at `/__admin/ui`: not API operations, see `isPagePath`), responses carrying `x-fake-fault` (an injected fault answers
 * whatever the test asked for), CORS preflights (OPTIONS) and HEAD responses (no body).
 */
import supertest from 'supertest';
import {
  type ConformanceChecker,
  ConformanceError,
  conformanceCheckerFor,
  describeFailure,
  isPagePath,
} from './conformance.js';

type Callback = (error: Error | null, res?: SuperagentResponse) => void;

interface SuperagentResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
  text?: string;
}

interface TestInternals {
  app: object | string;
  url: string;
  method: string;
  assert(resError: unknown, res: SuperagentResponse | undefined, fn: Callback | undefined): void;
}

const TestClass = supertest.Test as unknown as { prototype: TestInternals } & (new (
  app: object | string,
  method: string,
  path: string,
) => PromiseLike<SuperagentResponse>);

const proto = TestClass.prototype;
const originalAssert = proto.assert;
const checkers = new WeakMap<object, Promise<ConformanceChecker>>();
const checkersByOrigin = new Map<string, Promise<ConformanceChecker>>();

async function specOf(target: object | string): Promise<ConformanceChecker> {
  const base = typeof target === 'string' ? new URL(target).origin : target;
  const res = await new TestClass(base, 'get', '/openapi.json');
  if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}: cannot check responses`);
  return conformanceCheckerFor(res.text ?? JSON.stringify(res.body));
}

function checkerFor(target: object | string): Promise<ConformanceChecker> {
  if (typeof target === 'string') {
    const origin = new URL(target).origin;
    let checker = checkersByOrigin.get(origin);
    if (!checker) {
      checker = specOf(target);
      checkersByOrigin.set(origin, checker);
      checker.catch(() => checkersByOrigin.delete(origin));
    }
    return checker;
  }
  let checker = checkers.get(target);
  if (!checker) {
    checker = specOf(target);
    checkers.set(target, checker);
    checker.catch(() => checkers.delete(target));
  }
  return checker;
}

function bodyOf(res: SuperagentResponse): unknown {
  const type = String(res.headers['content-type'] ?? '');
  if (/json/i.test(type)) return res.text === '' ? undefined : res.body;
  return res.text ?? res.body;
}

function isSpecRequest(url: string): boolean {
  return isPagePath(new URL(url, 'http://x.invalid').pathname);
}

proto.assert = function assertWithConformance(this: TestInternals, resError, res, fn) {
  originalAssert.call(this, resError, res, (error, response) => {
    if (!fn) return;
    if (error || !response || isSpecRequest(this.url)) {
      fn.call(this, error, response);
      return;
    }
    const observed = {
      method: this.method,
      url: this.url,
      status: response.status,
      headers: response.headers,
      body: bodyOf(response),
    };
    checkerFor(this.app)
      .then((checker) => {
        const result = checker.check(observed);
        const failure = describeFailure(observed, result);
        fn.call(this, failure ? new ConformanceError(failure, result) : null, response);
      })
      .catch((failure: Error) => fn.call(this, failure, response));
  });
};
