/**
 * The tables of docs/admin-api.md, made from the spec's admin operations (tag `admin`), so the page
 * lists every admin call the fake answers and nothing else: what each call takes and does (its
 * query parameters, its body's properties, its `summary` and `description`), and the name each
 * language gives it (`x-client`, `x-controls`, `x-powershell`, `x-python`).
 */
import { ADMIN_TAG, listOperations, type Operation } from '../src/contract/operations.js';
import { type OpenApiDocument, resolveRef } from '../src/contract/spec-document.js';
import { adminTools, BODY_ARGUMENT, SESSION_ARGUMENT } from '../src/mcp/tools.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const cell = (text: string): string => text.replace(/\|/g, '\\|').replace(/\s*\r?\n\s*/g, ' ');

const adminOperations = (document: OpenApiDocument): Operation[] =>
  listOperations(document).filter((op) => op.tags.includes(ADMIN_TAG));

const call = (op: Operation): string => `\`${op.method.toUpperCase()} ${op.path}\``;

/** An object schema's properties as `{name, optional?}`, or undefined for a schema without them. */
function shape(document: OpenApiDocument, raw: unknown): string | undefined {
  const schema = resolveRef<Obj>(document, raw);
  if (Array.isArray(schema.oneOf)) {
    const shapes = schema.oneOf.map((branch) => shape(document, branch));
    return shapes.every((s) => s !== undefined) ? shapes.join('` or `') : undefined;
  }
  if (!isObj(schema.properties)) return undefined;
  const required = new Set(Array.isArray(schema.required) ? schema.required : []);
  const names = Object.keys(schema.properties).map((name) => (required.has(name) ? name : `${name}?`));
  if (schema.additionalProperties === true) names.push('...');
  return `{${names.join(', ')}}`;
}

/** What a call takes: its query parameters and its JSON body's shape (or its schema's name). */
function takes(document: OpenApiDocument, op: Operation): string {
  const parts: string[] = [];
  const query = op.parameters.filter((p) => p.in === 'query').map((p) => `\`${p.name}\``);
  if (query.length > 0) parts.push(`query: ${query.join(', ')}`);
  const raw = op.raw.requestBody;
  const body = isObj(raw) ? resolveRef<Obj>(document, raw) : undefined;
  const media = isObj(body?.content) ? body.content['application/json'] : undefined;
  if (isObj(media) && media.schema !== undefined) {
    const named = isObj(media.schema) && typeof media.schema.$ref === 'string' ? media.schema.$ref : '';
    const body = shape(document, media.schema) ?? `a \`${named.split('/').pop()}\``;
    parts.push(`body: ${body.startsWith('{') ? `\`${body}\`` : body}`);
  }
  return parts.length > 0 ? parts.join('; ') : '-';
}

/** The spec's `docs/page.md#part` as a link from a page of docs/. */
const linked = (text: string): string =>
  text.replace(
    /\bdocs\/([\w-]+\.md(?:#[\w-]+)?)/g,
    (_, target: string) => `[${target.split('#')[0]}](${target})`,
  );

/** What a call does: its summary, then its description. */
function does(op: Operation): string {
  const summary = String(op.raw.summary ?? '');
  const description = typeof op.raw.description === 'string' ? op.raw.description.trim() : '';
  return cell(linked(description ? `${summary}. ${description}` : `${summary}.`));
}

/** Every admin call with what it takes and what it does, path by path in the spec's order. */
export function adminCallsTable(document: OpenApiDocument): string {
  const rows = adminOperations(document).map(
    (op) => `| ${call(op)} | ${takes(document, op)} | ${does(op)} |`,
  );
  return ['| call | query / body | does |', '| --- | --- | --- |', ...rows].join('\n');
}

const names = (op: Operation, extension: string): string => {
  const list = op.raw[extension];
  if (!Array.isArray(list) || list.length === 0) throw new Error(`${op.operationId}: no ${extension}`);
  return list.map((name) => `\`${String(name)}\``).join(', ');
};

/** Every admin call with the names the TypeScript client, the in-process API and the helpers give it. */
export function adminNamesTable(document: OpenApiDocument): string {
  const rows = adminOperations(document).map(
    (op) =>
      `| ${call(op)} | ${names(op, 'x-client')} | ${names(op, 'x-controls')} | ${names(op, 'x-powershell')} | ${names(op, 'x-python')} |`,
  );
  return [
    '| call | `createAdminClient()` | `createMockServer()` | PowerShell | Python `AdminClient` |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

/** The MCP server's tools (src/mcp/tools.ts makes them from the same operations): name, call, arguments, hints. */
export function mcpToolsTable(document: OpenApiDocument): string {
  const rows = adminTools(document).map((tool) => {
    const { properties, required } = tool.inputSchema;
    const args = Object.keys(properties)
      .filter((name) => name !== SESSION_ARGUMENT)
      .map((name) => `\`${name}${required.includes(name) ? '' : '?'}\``);
    const { readOnlyHint, destructiveHint } = tool.annotations;
    const hint = readOnlyHint ? 'read-only' : destructiveHint ? 'destructive' : '-';
    return `| \`${tool.name}\` | ${call(tool.operation)} | ${args.length > 0 ? args.join(', ') : '-'} | ${hint} | ${cell(tool.title)} |`;
  });
  return [
    `| tool | call | arguments (besides \`${SESSION_ARGUMENT}?\`; \`${BODY_ARGUMENT}\`: the JSON body) | hint | does |`,
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}

/** What a tenant's token may do with each kind of admin call (`x-tenant`). */
const TENANCY_TEXT: Record<string, string> = {
  open: 'anyone, anywhere (no token needed)',
  operator: 'nothing: the operator\u2019s alone',
  'own-session':
    'on a session it owns (`/sessions/{id}/__admin/...`); never on the root or another\u2019s session',
  'own-session-or-run':
    'on a session it owns, or at the root for one of its own runs (`?run=`); never the root\u2019s own, nor another\u2019s session or run',
  'tenant-creatable':
    'at the root or its own session, on its own sessions: creates them (it owns them), lists and deletes only those',
};

/** Every admin call with what a tenant's token may do with it (the operator's may do everything). */
export function adminTenancyTable(document: OpenApiDocument): string {
  const rows = adminOperations(document).map((op) => {
    if (op.tenancy === undefined) throw new Error(`${op.operationId}: no x-tenant`);
    return `| ${call(op)} | \`${op.tenancy}\` | ${TENANCY_TEXT[op.tenancy]} |`;
  });
  return ['| call | `x-tenant` | a tenant\u2019s token may call it |', '| --- | --- | --- |', ...rows].join(
    '\n',
  );
}
