import { ADMIN_TAG, listOperations, type Operation } from '../contract/operations.js';
import { type OpenApiDocument, resolveRef } from '../contract/spec-document.js';
import { inlineRefs } from '../json-schema.js';

/**
 * The MCP server's tools, made from the spec's admin operations (tag `admin`) and nothing else:
 * one tool per operation, named by its `operationId`, described by its `summary` and
 * `description`, its arguments the operation's path and query parameters (their schemas as the
 * spec bounds them) and its JSON body (`body`, the request schema), plus `session`, the session
 * the call is addressed to (absent: the root). A new admin operation in the spec is a new tool.
 * The hints come from the operation too: a GET is read-only; a DELETE, or an operation marked
 * `x-destructive: true` (a reset, a fixture load, revoking every token), is destructive; GET, PUT
 * and DELETE are idempotent, as HTTP makes them. docs/mcp.md's table of tools is made from these.
 */

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The argument that picks the session a tool acts on. */
export const SESSION_ARGUMENT = 'session';
/** The argument that holds an operation's JSON body. */
export const BODY_ARGUMENT = 'body';

/** What MCP says about a tool's effects (the `ToolAnnotations` of the protocol). */
export interface ToolHints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  /** The fake is a closed world: no tool reaches anything outside it. */
  openWorldHint: false;
}

export interface AdminTool {
  name: string;
  title: string;
  description: string;
  /** JSON Schema 2020-12 of the arguments, self-contained (references inlined). */
  inputSchema: Obj & { type: 'object'; properties: Obj; required: string[] };
  annotations: ToolHints & { title: string };
  operation: Operation;
}

/** A schema as a tool shows it: references inlined, the spec's examples and extensions left out. */
function cleanSchema(document: OpenApiDocument, schema: unknown): Obj {
  const inlined = inlineRefs(schema, (ref) =>
    ref.startsWith('#/components/schemas/') ? resolveRef(document, { $ref: ref }) : undefined,
  );
  const clean = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(clean);
    if (!isObj(value)) return value;
    const out: Obj = {};
    for (const [key, inner] of Object.entries(value)) {
      if (key === 'example' || key === 'discriminator' || key.startsWith('x-')) continue;
      // `properties` names user fields, which are never keywords to drop.
      out[key] = key === 'properties' && isObj(inner) ? cleanProperties(inner) : clean(inner);
    }
    return out;
  };
  const cleanProperties = (properties: Obj): Obj =>
    Object.fromEntries(Object.entries(properties).map(([name, inner]) => [name, clean(inner)]));
  const made = clean(inlined);
  if (JSON.stringify(made).includes('"$ref"')) {
    throw new Error('a tool schema kept a reference it could not inline (a schema that refers to itself)');
  }
  return made as Obj;
}

/** The description each parameter has in the spec (path-level and operation-level). */
function parameterDescriptions(document: OpenApiDocument, operation: Operation): Map<string, string> {
  const item = resolveRef<Obj>(document, document.paths[operation.path]);
  const raws = [
    ...(Array.isArray(item.parameters) ? item.parameters : []),
    ...(Array.isArray(operation.raw.parameters) ? operation.raw.parameters : []),
  ];
  const out = new Map<string, string>();
  for (const raw of raws) {
    const p = resolveRef<Obj>(document, raw);
    if (typeof p.name === 'string' && typeof p.description === 'string')
      out.set(p.name, p.description.trim());
  }
  return out;
}

function hintsOf(operation: Operation): ToolHints {
  const method = operation.method;
  const readOnly = method === 'get' || method === 'head';
  return {
    readOnlyHint: readOnly,
    destructiveHint: !readOnly && (method === 'delete' || operation.raw['x-destructive'] === true),
    idempotentHint: readOnly || method === 'put' || method === 'delete',
    openWorldHint: false,
  };
}

function toolOf(document: OpenApiDocument, operation: Operation): AdminTool {
  const properties: Obj = {
    [SESSION_ARGUMENT]: {
      type: 'string',
      minLength: 1,
      maxLength: 256,
      description:
        'The id of the session to act on (as createSession answered it); absent: the root instance.',
    },
  };
  const required: string[] = [];
  const described = parameterDescriptions(document, operation);
  for (const parameter of operation.parameters) {
    if (parameter.in !== 'path' && parameter.in !== 'query') continue;
    if (parameter.name in properties || parameter.name === BODY_ARGUMENT) {
      throw new Error(`${operation.operationId}: parameter ${parameter.name} would hide a tool argument`);
    }
    const description = described.get(parameter.name);
    properties[parameter.name] = {
      ...cleanSchema(document, parameter.schema),
      ...(description === undefined ? {} : { description }),
    };
    if (parameter.required) required.push(parameter.name);
  }
  const json = operation.requestBody?.content.get('application/json');
  if (json !== undefined) {
    properties[BODY_ARGUMENT] = {
      ...cleanSchema(document, json),
      description: 'The JSON body of the call, as the admin API takes it (docs/admin-api.md).',
    };
    if (operation.requestBody?.required) required.push(BODY_ARGUMENT);
  }
  const summary = String(operation.raw.summary ?? operation.operationId);
  const description = typeof operation.raw.description === 'string' ? operation.raw.description.trim() : '';
  const call = `${operation.method.toUpperCase()} ${operation.path}`;
  return {
    name: operation.operationId,
    title: summary,
    description: `${summary} (${call}).${description === '' ? '' : `\n\n${description}`}`,
    inputSchema: { type: 'object', properties, required, additionalProperties: false },
    annotations: { title: summary, ...hintsOf(operation) },
    operation,
  };
}

/** One tool per admin operation of the spec, in the spec's order. */
export function adminTools(document: OpenApiDocument): AdminTool[] {
  return listOperations(document)
    .filter((op) => op.tags.includes(ADMIN_TAG))
    .map((op) => toolOf(document, op));
}

/** The HTTP call a tool's (checked) arguments make: method, path under `/__admin` with its query, body. */
export interface ToolCall {
  method: string;
  /** Under `/__admin` of the root or of the session, with the query string. */
  path: string;
  body: unknown;
  session: string | undefined;
}

export function callOf(tool: AdminTool, args: Obj): ToolCall {
  const { operation } = tool;
  let path = operation.path.replace(/^\/__admin/, '');
  const query = new URLSearchParams();
  for (const parameter of operation.parameters) {
    const value = args[parameter.name];
    if (value === undefined) continue;
    if (parameter.in === 'path') {
      path = path.replace(`{${parameter.name}}`, encodeURIComponent(String(value)));
    } else if (parameter.in === 'query') query.set(parameter.name, String(value));
  }
  const search = query.toString();
  const session = typeof args[SESSION_ARGUMENT] === 'string' ? args[SESSION_ARGUMENT] : undefined;
  return {
    method: operation.method.toUpperCase(),
    path: search === '' ? path : `${path}?${search}`,
    body: args[BODY_ARGUMENT],
    session,
  };
}
