/**
 * Response conformance: every response the fake emits is checked against the operation of
 * `spec/openapi.yaml` (or the spec the server was started with) that the request matched, with
 * the same prism-http validator the server uses for `--validate-responses`
 * (`src/contract/response-validator.ts`).
 *
 * `test/support/setup-conformance.ts` applies it to every supertest response; tests that talk to
 * a listening server with `fetch` call `assertConforms` themselves.
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { listOperations, type Operation } from '../../src/contract/operations.js';
import { createResponseChecker, type ResponseChecker } from '../../src/contract/response-validator.js';
import { loadSpec, type OpenApiDocument } from '../../src/contract/spec-document.js';
import type { Violation } from '../../src/errors.js';

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export interface ObservedResponse {
  method: string;
  /** The request URL: absolute, or a path with an optional query string. */
  url: string;
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export interface ConformanceResult {
  /** Why the response was not checked (spec document, CORS preflight, injected fault...). */
  skipped?: string;
  /** The operation the request matched; absent for an unknown route or a wrong method. */
  operationId?: string;
  violations: Violation[];
}

export interface ConformanceChecker {
  check(response: ObservedResponse): ConformanceResult;
}

const SESSION_PREFIX = /^\/sessions\/[^/]+(?=\/|$)/;
/**
 * The spec documents and the fake's pages for people (landing page, icon, API docs, inspector):
 * served beside the API, not operations of the spec.
 */
export function isPagePath(path: string): boolean {
  return (
    /^\/(?:openapi\.[a-z]+|favicon\.ico|docs(?:\/.*)?)?$/.test(path) ||
    /^(?:\/sessions\/[^/]+)?\/__admin\/ui(?:\/.*)?$/.test(path)
  );
}

const SPEC_URI = 'https://passportal-docs-fake.local/conformance/openapi.json';

interface Route {
  operation: Operation;
  pattern: RegExp;
  literalSegments: number;
}

function routeOf(operation: Operation): Route {
  const segments = operation.path.split('/');
  const pattern = segments
    .map((segment) =>
      /^\{[^}]+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/');
  return {
    operation,
    pattern: new RegExp(`^${pattern}/?$`),
    literalSegments: segments.filter((s) => !s.startsWith('{')).length,
  };
}

function pathOf(url: string): string {
  const path = new URL(url, 'http://conformance.invalid').pathname;
  return path.replace(SESSION_PREFIX, '') || '/';
}

function flatHeaders(headers: ObservedResponse['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

/** Builds a checker over one spec document (prism-http loads on the first call in the process). */
export async function createConformanceChecker(document: OpenApiDocument): Promise<ConformanceChecker> {
  const checkResponse: ResponseChecker = await createResponseChecker(document);
  const routes = listOperations(document)
    .map(routeOf)
    .sort((a, b) => b.literalSegments - a.literalSegments);

  // A request that matches no operation (unknown route, wrong method) has no operation to check
  // against; its answer must still be an error in the vendor's shape.
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema(document as object, SPEC_URI);
  const errorSchema: ValidateFunction = ajv.compile({ $ref: `${SPEC_URI}#/components/schemas/Error` });

  return {
    check(response) {
      const method = response.method.toLowerCase();
      const path = pathOf(response.url);
      const headers = flatHeaders(response.headers);
      if (isPagePath(path)) return { skipped: 'the spec document or a page', violations: [] };
      if (headers['x-fake-fault'] !== undefined) return { skipped: 'an injected fault', violations: [] };
      // The fake redirects only a browser opening an admin path by hand to its inspector page.
      if (response.status === 302 && /\/__admin\/ui$/.test(headers.location ?? '')) {
        return { skipped: 'a redirect to the inspector', violations: [] };
      }
      if (method === 'options') return { skipped: 'a CORS preflight', violations: [] };
      if (method === 'head') return { skipped: 'a HEAD response has no body', violations: [] };

      const route = routes.find((r) => r.operation.method === method && r.pattern.test(path));
      if (!route) {
        const violations: Violation[] = [];
        if (response.status < 400) {
          violations.push({
            location: 'response.status',
            message: `${response.status} for a request that matches no operation (expected an error)`,
          });
        }
        if (!errorSchema(response.body)) {
          for (const e of errorSchema.errors ?? []) {
            violations.push({
              location: `response.body${e.instancePath}`,
              message: `${e.message ?? 'is invalid'} (${e.keyword}, components/schemas/Error)`,
            });
          }
        }
        return { violations };
      }
      const { operationId } = route.operation;
      return {
        operationId,
        violations: checkResponse({ operationId, status: response.status, headers, body: response.body }),
      };
    },
  };
}

/** The failure message for a response that breaks the spec; undefined when it conforms. */
export function describeFailure(response: ObservedResponse, result: ConformanceResult): string | undefined {
  if (result.violations.length === 0) return undefined;
  const what = result.operationId ?? 'no operation (unknown route or wrong method)';
  const lines = result.violations.map((v) => `  ${v.location}: ${v.message}`);
  return [
    `response breaks spec/openapi.yaml: ${response.method.toUpperCase()} ${response.url} -> ${response.status}, operation ${what}`,
    ...lines,
    `  body: ${JSON.stringify(response.body)?.slice(0, 500)}`,
  ].join('\n');
}

export class ConformanceError extends Error {
  readonly violations: Violation[];
  readonly operationId: string | undefined;
  constructor(message: string, result: ConformanceResult) {
    super(message);
    this.name = 'ConformanceError';
    this.violations = result.violations;
    this.operationId = result.operationId;
  }
}

const checkersBySpecText = new Map<string, Promise<ConformanceChecker>>();

/** One checker per distinct spec text, shared by every server of the test file that serves it. */
export function conformanceCheckerFor(specJson: string): Promise<ConformanceChecker> {
  let checker = checkersBySpecText.get(specJson);
  if (!checker) {
    checker = createConformanceChecker(JSON.parse(specJson) as OpenApiDocument);
    checkersBySpecText.set(specJson, checker);
  }
  return checker;
}

/** The checker of the shipped `spec/openapi.yaml`. */
export function defaultConformanceChecker(): Promise<ConformanceChecker> {
  return conformanceCheckerFor(loadSpec().json);
}

/** Throws a ConformanceError naming operation, location and rule when the response breaks the spec. */
export async function assertConforms(
  response: ObservedResponse,
  checker: ConformanceChecker | Promise<ConformanceChecker> = defaultConformanceChecker(),
): Promise<void> {
  const result = (await checker).check(response);
  const failure = describeFailure(response, result);
  if (failure) throw new ConformanceError(failure, result);
}

/** Reads a fetch Response (body as JSON when it says so) and checks it; answers the parsed body. */
export async function checkFetchResponse(
  method: string,
  url: string,
  res: Response,
  checker?: ConformanceChecker | Promise<ConformanceChecker>,
): Promise<unknown> {
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  const body = /json/i.test(type) && text !== '' ? (JSON.parse(text) as unknown) : text;
  await assertConforms(
    { method, url, status: res.status, headers: Object.fromEntries(res.headers.entries()), body },
    checker,
  );
  return body;
}
