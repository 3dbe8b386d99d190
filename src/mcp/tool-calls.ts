import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import type { AdminAnswer, AdminCall } from '../client/admin-client.js';
import type { OpenApiDocument } from '../contract/spec-document.js';
import { loadAddFormats, loadAjv } from '../json-schema.js';
import type { Redaction } from './redaction.js';
import { type AdminTool, adminTools, callOf } from './tools.js';

/**
 * A tool call: its arguments checked against the tool's schema (a bad one is a tool error naming
 * each field, never a crash), then the admin call it stands for, made through the one admin
 * caller (`createAdminCall`, as the typed client makes every call), its answer redacted
 * (`Redaction`) and bounded (`MAX_RESULT_CHARS`).
 */

/** The longest text one tool result holds; a longer answer is cut, saying how to narrow it. */
export const MAX_RESULT_CHARS = 1_000_000;

/** What a tool call answers (the protocol's `CallToolResult`, text content only). */
export interface ToolResult {
  [key: string]: unknown;
  content: Array<{ type: 'text'; text: string }>;
  isError?: boolean;
}

/** The admin call at the root URL (`undefined`) or at a session's. */
export type CallAt = (session: string | undefined) => AdminCall;

interface Made {
  tools: AdminTool[];
  byName: Map<string, AdminTool>;
  validators: Map<string, ValidateFunction>;
  /** Compiles the tools' schemas, made on the first call. */
  ajv?: InstanceType<ReturnType<typeof loadAjv>['Ajv2020']>;
}

/** The tools of each spec document and their validators, made once per document (HTTP makes a server per request). */
const made = new WeakMap<OpenApiDocument, Made>();

export function toolsOf(document: OpenApiDocument): Made {
  let found = made.get(document);
  if (found === undefined) {
    const tools = adminTools(document);
    found = { tools, byName: new Map(tools.map((t) => [t.name, t])), validators: new Map() };
    made.set(document, found);
  }
  return found;
}

function validatorOf(found: Made, tool: AdminTool): ValidateFunction {
  let validate = found.validators.get(tool.name);
  if (validate === undefined) {
    if (found.ajv === undefined) {
      const { Ajv2020 } = loadAjv();
      found.ajv = new Ajv2020({ allErrors: true, strict: false, validateFormats: true });
      loadAddFormats()(found.ajv);
    }
    validate = found.ajv.compile(tool.inputSchema);
    found.validators.set(tool.name, validate);
  }
  return validate;
}

const decode = (part: string) => part.replaceAll('~1', '/').replaceAll('~0', '~');

/** Each of Ajv's errors as `field: what is wrong`, the field a dotted path from the arguments. */
export function describeArgumentErrors(errors: readonly ErrorObject[]): string[] {
  const lines = new Set<string>();
  for (const error of errors) {
    const at = error.instancePath.split('/').slice(1).map(decode).join('.');
    const inside = (name: string) => (at === '' ? name : `${at}.${name}`);
    if (error.keyword === 'required')
      lines.add(`${inside(String(error.params.missingProperty))}: is required`);
    else if (error.keyword === 'additionalProperties') {
      const name = inside(String(error.params.additionalProperty));
      lines.add(at === '' ? `${name}: is not an argument of this tool` : `${name}: is not a field here`);
    } else if (error.keyword === 'enum') {
      lines.add(
        `${at || '(arguments)'}: must be one of ${(error.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      );
    } else lines.add(`${at || '(arguments)'}: ${error.message ?? 'is invalid'}`);
  }
  return [...lines].slice(0, 20);
}

const text = (value: string, isError = false): ToolResult => ({
  content: [{ type: 'text', text: value }],
  ...(isError ? { isError: true } : {}),
});

function bounded(value: string): string {
  if (value.length <= MAX_RESULT_CHARS) return value;
  return `${value.slice(0, MAX_RESULT_CHARS)}\n... (cut at ${MAX_RESULT_CHARS} of ${value.length} characters: narrow the call, e.g. limit and offset, or a filter)`;
}

/** The message of an error answer: its `message` and each of its `errors`. */
function refusal(answer: AdminAnswer): string {
  try {
    const body = JSON.parse(answer.text) as {
      message?: unknown;
      errors?: Array<{ location?: string; message?: string }>;
    };
    const errors = Array.isArray(body.errors)
      ? body.errors.map((e) => `\n- ${e.location ?? ''}: ${e.message ?? ''}`).join('')
      : '';
    return `${typeof body.message === 'string' ? body.message : 'refused'}${errors}`;
  } catch {
    return answer.text.slice(0, 500) || 'no body';
  }
}

/** The result of an admin answer: its JSON (or text) redacted, or, for a refusal, a tool error saying why. */
function resultOf(
  call: { method: string; path: string; session: string | undefined },
  answer: AdminAnswer,
  redaction: Redaction,
): ToolResult {
  const where = `${call.method} ${call.session === undefined ? '' : `/sessions/${call.session}`}/__admin${call.path}`;
  if (answer.status < 200 || answer.status > 299) {
    return text(redaction.text(`${where} answered ${answer.status}: ${refusal(answer)}`), true);
  }
  if (answer.text === '') return text(`${where}: done (${answer.status})`);
  if (answer.mediaType === 'application/json' || answer.mediaType.endsWith('+json')) {
    try {
      return text(bounded(JSON.stringify(redaction.value(JSON.parse(answer.text)), null, 2)));
    } catch {
      // Not JSON after all: shown as the text it is.
    }
  }
  return text(bounded(redaction.text(answer.text)));
}

/** Runs one tool: checks the arguments, makes the call, answers the result (never throws for bad input or a refusal). */
export async function runTool(
  document: OpenApiDocument,
  name: string,
  args: unknown,
  callAt: CallAt,
  redaction: Redaction,
): Promise<ToolResult | undefined> {
  const found = toolsOf(document);
  const tool = found.byName.get(name);
  if (tool === undefined) return undefined;
  const given = args ?? {};
  const validate = validatorOf(found, tool);
  if (!validate(given)) {
    const lines = describeArgumentErrors(validate.errors ?? []);
    return text(
      redaction.text(`invalid arguments for ${name}:\n${lines.map((l) => `- ${l}`).join('\n')}`),
      true,
    );
  }
  const call = callOf(tool, given as Record<string, unknown>);
  let answer: AdminAnswer;
  try {
    answer = await callAt(call.session)(call.method, call.path, call.body);
  } catch (error) {
    const cause =
      (error as Error).cause instanceof Error
        ? ((error as Error).cause as Error).message
        : (error as Error).message;
    return text(
      redaction.text(`the fake did not answer ${call.method} /__admin${call.path}: ${cause}`),
      true,
    );
  }
  return resultOf(call, answer, redaction);
}
