import { type OpenApiDocument, resolveRef } from './spec-document.js';

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface ParameterDef {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  schema: Record<string, unknown>;
  /** `x-case-insensitive`: the value is lower-cased before it is checked and handed on. */
  caseInsensitive: boolean;
  /** `x-expected`: how to describe a valid value in an error message. */
  expected: string | undefined;
  /** `x-aliases`: other spellings read as this parameter (query only), each with a notice. */
  aliases: string[];
}

export interface RequestBodyDef {
  required: boolean;
  /** Media type → schema. */
  content: Map<string, Record<string, unknown>>;
}

/**
 * What a tenant's token may do with an admin operation (`x-tenant` in the spec, on every admin
 * operation; `http/tenant-boundary.ts` enforces it, the operator's token may do everything):
 *
 *   open                no token needed (the health check)
 *   operator            the operator's alone
 *   own-session         on a session the tenant owns (`/sessions/{id}/__admin/...`), never the root
 *   own-session-or-run  as own-session, or at the root for one of the tenant's runs (`?run=`)
 *   tenant-creatable    at the root or its own session, on the sessions it owns: create, list, delete
 */
export const TENANCIES = [
  'open',
  'operator',
  'own-session',
  'own-session-or-run',
  'tenant-creatable',
] as const;
export type Tenancy = (typeof TENANCIES)[number];

const isTenancy = (value: unknown): value is Tenancy => (TENANCIES as readonly unknown[]).includes(value);

export interface Operation {
  operationId: string;
  method: HttpMethod;
  /** As the spec writes it: `/api/v2/documents/{documentId}`. */
  path: string;
  /** The same in Express syntax: `/api/v2/documents/:documentId`. */
  routePath: string;
  tags: string[];
  parameters: ParameterDef[];
  requestBody: RequestBodyDef | undefined;
  /** `x-tenant`: what a tenant may do with it (admin operations); undefined when not declared. */
  tenancy: Tenancy | undefined;
  /** The raw operation object, for the fallback mocker and response checks. */
  raw: Record<string, unknown>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function toParameter(document: OpenApiDocument, raw: unknown): ParameterDef {
  const p = resolveRef<Obj>(document, raw);
  const location = p.in as ParameterDef['in'];
  return {
    name: location === 'header' ? String(p.name).toLowerCase() : String(p.name),
    in: location,
    required: p.required === true || location === 'path',
    schema: isObj(p.schema) ? p.schema : {},
    caseInsensitive: p['x-case-insensitive'] === true,
    expected: typeof p['x-expected'] === 'string' ? p['x-expected'] : undefined,
    aliases: Array.isArray(p['x-aliases']) ? p['x-aliases'].map(String) : [],
  };
}

/** The tag of the admin API's operations (the test harness's, not the vendor's). */
export const ADMIN_TAG = 'admin';

/** The ids of the operations a client of the vendor's API calls (all but the admin API's), in spec order. */
export function clientOperationIds(document: OpenApiDocument): string[] {
  return listOperations(document)
    .filter((op) => !op.tags.includes(ADMIN_TAG))
    .map((op) => op.operationId);
}

/** The operations of each spec document, listed once per document object (it is never edited). */
const listed = new WeakMap<OpenApiDocument, readonly Operation[]>();

/** Every operation of the spec, in the order the spec lists them. */
export function listOperations(document: OpenApiDocument): readonly Operation[] {
  let operations = listed.get(document);
  if (operations === undefined) {
    operations = Object.freeze(readOperations(document));
    listed.set(document, operations);
  }
  return operations;
}

function readOperations(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, rawItem] of Object.entries(document.paths)) {
    const item = resolveRef<Obj>(document, rawItem);
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const method of HTTP_METHODS) {
      const op = item[method];
      if (!isObj(op)) continue;
      const byKey = new Map<string, ParameterDef>();
      for (const raw of [...shared, ...(Array.isArray(op.parameters) ? op.parameters : [])]) {
        const param = toParameter(document, raw);
        byKey.set(`${param.in}:${param.name}`, param);
      }
      let requestBody: RequestBodyDef | undefined;
      if (op.requestBody !== undefined) {
        const body = resolveRef<Obj>(document, op.requestBody);
        const content = new Map<string, Obj>();
        for (const [mediaType, media] of Object.entries(isObj(body.content) ? body.content : {})) {
          content.set(mediaType.toLowerCase(), isObj(media) && isObj(media.schema) ? media.schema : {});
        }
        requestBody = { required: body.required === true, content };
      }
      operations.push({
        operationId: typeof op.operationId === 'string' ? op.operationId : `${method} ${path}`,
        method,
        path,
        routePath: path.replace(/\{([^}]+)\}/g, ':$1'),
        tags: Array.isArray(op.tags) ? op.tags.map(String) : [],
        parameters: [...byKey.values()],
        requestBody,
        tenancy: isTenancy(op['x-tenant']) ? op['x-tenant'] : undefined,
        raw: op,
      });
    }
  }
  return operations;
}
