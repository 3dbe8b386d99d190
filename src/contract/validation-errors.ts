import type { ErrorObject } from 'ajv/dist/2020.js';
import { ApiError, type Violation } from '../errors.js';
import type { ParameterDef } from './operations.js';

/**
 * Turns Ajv's errors into the vendor's errors: which kind (400 body, 404 query value, 401
 * credentials, 400 invalid id), a message naming the parameter or body path and what it
 * expected, and the `errors` list of every violation.
 */

export function unsupported(mediaType: string | undefined, accepted: string[]): ApiError {
  return new ApiError(
    'unsupportedMediaType',
    `unsupported content type ${mediaType ?? '(none)'}; expected ${accepted.join(' or ')}`,
    [{ location: 'header.content-type', message: `must be ${accepted.join(' or ')}` }],
  );
}

/** Describes what a parameter accepts, in the vendor's words: "an integer between 1 and 9999". */
export function describeExpected(def: ParameterDef): string {
  if (def.expected) return def.expected;
  const s = def.schema;
  const anyCase = def.caseInsensitive ? ' (any case)' : '';
  if (Array.isArray(s.enum)) return `one of: ${s.enum.join(', ')}${anyCase}`;
  if (s.type === 'integer') {
    const min = typeof s.minimum === 'number' ? s.minimum : undefined;
    const max = typeof s.maximum === 'number' ? s.maximum : undefined;
    if (min !== undefined && max !== undefined) return `an integer between ${min} and ${max}`;
    if (min !== undefined) return `an integer of at least ${min}`;
    if (max !== undefined) return `an integer of at most ${max}`;
    return 'an integer';
  }
  if (typeof s.pattern === 'string') return `a string matching ${s.pattern}`;
  return `a ${String(s.type ?? 'value')}`;
}

export function parameterError(
  location: 'path' | 'query' | 'header',
  defs: ParameterDef[],
  errors: ErrorObject[],
  /** The test harness's own calls answer a bad parameter with 400, not the vendor's 404 and `invalid id`. */
  harness = false,
): ApiError {
  const violations: Violation[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const name =
      error.keyword === 'required'
        ? String(error.params.missingProperty)
        : decodePointer(error.instancePath).split('/')[1];
    if (!name || seen.has(name)) continue;
    seen.add(name);
    const def = defs.find((d) => d.name === name);
    const message =
      error.keyword === 'required'
        ? 'is required'
        : `needs to be ${def ? describeExpected(def) : error.message}`;
    violations.push({ location: `${location}.${name}`, message });
  }
  const first = violations[0];
  const name = first?.location.slice(location.length + 1) ?? location;
  if (harness && location !== 'header') {
    return new ApiError('invalidParameter', `${name} ${first?.message ?? 'is invalid'}`, violations);
  }
  if (location === 'path') return new ApiError('invalidId', 'invalid id', violations);
  if (location === 'header') {
    return new ApiError(
      'missingCredentials',
      `Key verification failed: header ${name} ${first?.message ?? ''}`.trim(),
      violations,
    );
  }
  return new ApiError('invalidQuery', `${name} ${first?.message ?? 'is invalid'}.`, violations);
}

function decodePointer(pointer: string): string {
  return pointer.replaceAll('~1', '\u0000').replaceAll('~0', '~');
}

/**
 * Ajv reports every branch of a failed `oneOf`/`anyOf`. Branches that failed only because the value
 * has another type (an object given where the array branch expects an array) say nothing useful;
 * keep the branches that got further, or a single "must be X or Y" when none did.
 */
export function pruneAlternatives(errors: ErrorObject[]): ErrorObject[] {
  let current = errors;
  for (let round = 0; round < 5; round++) {
    const combinator = current.find((e) => e.keyword === 'oneOf' || e.keyword === 'anyOf');
    if (!combinator) return current;
    const prefix = `${combinator.schemaPath.slice(0, -combinator.keyword.length)}${combinator.keyword}/`;
    const branches = new Map<string, ErrorObject[]>();
    const rest: ErrorObject[] = [];
    for (const e of current) {
      if (e === combinator) continue;
      if (e.schemaPath.startsWith(prefix)) {
        const branch = e.schemaPath.slice(prefix.length).split('/')[0] ?? '';
        const list = branches.get(branch);
        if (list) list.push(e);
        else branches.set(branch, [e]);
      } else rest.push(e);
    }
    // A branch that failed on its type, or on a property it forbids (`name: false`: the branch is
    // for other shapes), says nothing about what the sender meant.
    const shallow = (list: ErrorObject[]) =>
      list.some((e) => e.keyword === 'false schema') ||
      list.every(
        (e) => (e.keyword === 'type' || e.keyword === 'const') && e.instancePath === combinator.instancePath,
      );
    const useful = [...branches.values()].filter((list) => !shallow(list));
    if (useful.length > 0) {
      current = [...rest, ...useful.flat()];
    } else {
      const types = [...branches.values()]
        .flat()
        .map((e) => (e.keyword === 'type' ? String(e.params.type) : JSON.stringify(e.params.allowedValue)));
      current = [
        ...rest,
        { ...combinator, keyword: 'type', message: `must be ${[...new Set(types)].join(' or ')}` },
      ];
    }
  }
  return current;
}

/** The documented form of a detail entry, for messages. */
const DOCUMENTED_ENTRY = '{"name": "...", "description": "...", "value": {"type": "string", "text": "..."}}';

/** Turns Ajv errors into violations with a location (`body/0/templateUid`) and a plain message. */
export function describeErrors(errors: ErrorObject[], root: string): Violation[] {
  const out: Violation[] = [];
  const seen = new Set<string>();
  for (const e of errors) {
    let location = root + e.instancePath;
    let message = e.message ?? 'is invalid';
    if (e.keyword === 'required') {
      location = `${location}/${String(e.params.missingProperty)}`;
      message = 'is required';
    } else if (e.keyword === 'additionalProperties') {
      location = `${location}/${String(e.params.additionalProperty)}`;
      message = 'is not a known property';
    } else if (e.keyword === 'enum') {
      message = `must be one of: ${(e.params.allowedValues as unknown[]).join(', ')}`;
    }
    // A detail entry meant as the documented form: its value named whole, with the form to send.
    const entry =
      root === 'body' &&
      ((e.keyword === 'required' && e.params.missingProperty === 'value') ||
        /\/properties\/value\/(?:required|type)$/.test(e.schemaPath))
        ? location.match(/^(.*)\/value(?:\/[^/]*)?$/)?.[1]
        : undefined;
    if (entry !== undefined) {
      location = `${entry}/value`;
      message =
        e.keyword === 'required' && e.instancePath === entry.slice(root.length)
          ? `is required: send ${DOCUMENTED_ENTRY}`
          : 'must be an object {"type": "...", "text": "..."} of two strings';
    }
    const key = `${location} ${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ location, message });
  }
  return out;
}
