/**
 * The Python admin client is held to the spec's fields, not only its operations' names
 * (helpers-parity.test.ts). Read as text (no Python needed), each method an operation names in
 * `x-python` is compared with that operation's request (path and query parameters, body
 * properties) both ways: a field the spec has that none of the operation's methods can send, a
 * parameter that sends a field the spec lacks, a required field behind a parameter with a default,
 * and the bounds the client checks before sending (`REQUEST_FIELDS` of the committed
 * `_spec_types.py`) against the spec's. Each finding names the method, the operation and the field.
 * The three changes a spec edit makes most often are made to a copy of the spec here, so this test
 * keeps proving it catches them.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bodyTypeName, type FieldBounds, requestShapes } from '../../scripts/python-spec-types.js';
import { loadSpec, type OpenApiDocument } from '../../src/contract/spec-document.js';
import { editedSchema, type ObjectSchema } from '../support/spec-edits.js';

const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const ADMIN = 'clients/python/src/passportal_fake/admin.py';
const SPEC_TYPES = 'clients/python/src/passportal_fake/_spec_types.py';

interface Parameter {
  name: string;
  annotation: string;
  hasDefault: boolean;
  /** `**name`: takes any keyword. */
  anyKeyword: boolean;
}

interface PythonMethod {
  parameters: Parameter[];
  body: string;
}

/** The methods of a class, each with its parameters (without `self`) and its body's text. */
function methodsOf(source: string, className: string): Map<string, PythonMethod> {
  const start = source.search(new RegExp(`^class ${className}\\b`, 'm'));
  if (start < 0) throw new Error(`no class ${className}`);
  const rest = source.slice(source.indexOf('\n', start) + 1);
  const end = rest.search(/^\S/m);
  const text = end < 0 ? rest : rest.slice(0, end);
  const methods = new Map<string, PythonMethod>();
  const heads = [...text.matchAll(/^ {4}def ([A-Za-z_]\w*)\(/gm)];
  heads.forEach((head, index) => {
    const open = (head.index ?? 0) + head[0].length;
    let depth = 1;
    let at = open;
    for (; at < text.length && depth > 0; at++) {
      if ('([{'.includes(text[at] as string)) depth++;
      else if (')]}'.includes(text[at] as string)) depth--;
    }
    const signature = text.slice(open, at - 1);
    const parts: string[] = [];
    let current = '';
    depth = 0;
    for (const char of signature) {
      if ('([{'.includes(char)) depth++;
      if (')]}'.includes(char)) depth--;
      if (char === ',' && depth === 0) {
        parts.push(current);
        current = '';
      } else current += char;
    }
    parts.push(current);
    const parameters = parts
      .map((part) => part.trim())
      .filter((part) => part !== '' && part !== 'self' && part !== '*' && part !== '/')
      .map((part) => {
        const [declared, ...defaults] = part.split('=');
        const [rawName, ...annotation] = (declared ?? '').split(':');
        const name = (rawName ?? '').trim();
        return {
          name: name.replace(/^\*+/, ''),
          annotation: annotation.join(':').trim(),
          hasDefault: defaults.length > 0,
          anyKeyword: name.startsWith('**'),
        };
      });
    const next = heads[index + 1]?.index ?? text.length;
    methods.set(head[1] as string, { parameters, body: text.slice(at, next) });
  });
  return methods;
}

/** `_FIELD_OF_PARAMETER = {"seconds": "advanceSeconds", ...}`: the names outside the rule. */
function aliasesOf(source: string): Map<string, string> {
  const table = /^_FIELD_OF_PARAMETER = \{([^}]*)\}/m.exec(source)?.[1];
  if (table === undefined) throw new Error(`${ADMIN} has no _FIELD_OF_PARAMETER table`);
  return new Map([...table.matchAll(/"(\w+)":\s*"(\w+)"/g)].map((m) => [m[1] as string, m[2] as string]));
}

/** The client's rule: a parameter is its field's name in snake case. */
const fieldOf = (parameter: string, aliases: Map<string, string>): string =>
  aliases.get(parameter) ?? parameter.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

interface CheckedField {
  where: string;
  required: boolean;
  bounds: FieldBounds;
}

/** `REQUEST_FIELDS` of the committed module: per operation, the fields and bounds the client checks. */
function checkedFields(source: string): Map<string, Map<string, CheckedField>> {
  const start = source.indexOf('REQUEST_FIELDS: Dict[str, Dict[str, FieldRule]] = {');
  if (start < 0) throw new Error(`${SPEC_TYPES} has no REQUEST_FIELDS table`);
  const operations = new Map<string, Map<string, CheckedField>>();
  let fields: Map<string, CheckedField> | undefined;
  for (const line of source.slice(start).split('\n').slice(1)) {
    if (line === '}') break;
    const operation = /^ {4}"(\w+)": \{/.exec(line);
    if (operation) {
      fields = new Map();
      operations.set(operation[1] as string, fields);
      continue;
    }
    const field = /^ {8}"(\w+)": FieldRule\("(\w+)", (True|False)(.*)\),$/.exec(line);
    if (!field || !fields) continue;
    const bounds: FieldBounds = {};
    for (const m of (field[4] ?? '').matchAll(/(minimum|maximum|minLength|maxLength)=([-\d.e]+)/g))
      bounds[m[1] as 'minimum'] = Number(m[2]);
    const list = /enum=\((.*)\)/.exec(field[4] ?? '')?.[1];
    if (list !== undefined)
      bounds.enum = [...list.matchAll(/"((?:[^"\\]|\\.)*)"|(True|False)|([-\d.]+)/g)].map((m) =>
        m[1] !== undefined ? JSON.parse(`"${m[1]}"`) : m[2] !== undefined ? m[2] === 'True' : Number(m[3]),
      );
    fields.set(field[1] as string, { where: field[2] as string, required: field[3] === 'True', bounds });
  }
  return operations;
}

const BOUND_NAMES = ['minimum', 'maximum', 'minLength', 'maxLength', 'enum'] as const;
const show = (value: unknown): string => (value === undefined ? 'none' : JSON.stringify(value));

/**
 * Every way the Python client's methods and the bounds it checks differ from the spec's admin
 * operations' fields, one line each naming the method, the operation and the field.
 */
function pythonFieldDrift(document: OpenApiDocument, admin: string, specTypes: string): string[] {
  const methods = methodsOf(admin, 'AdminClient');
  const aliases = aliasesOf(admin);
  const checked = checkedFields(specTypes);
  const drift: string[] = [];
  for (const shape of requestShapes(document)) {
    const { operationId: op, fields } = shape;
    const who = `${shape.methods.join('/')} (${op})`;
    const bodyType = bodyTypeName(document, op);
    const sendable = new Map<string, string[]>();
    for (const name of shape.methods) {
      const method = methods.get(name);
      if (method === undefined) {
        drift.push(`${who}: the client has no method ${name}`);
        continue;
      }
      let wholeBody = false;
      for (const parameter of method.parameters) {
        const typedAsBody =
          bodyType !== undefined && new RegExp(`\\b${bodyType}\\b`).test(parameter.annotation);
        if (typedAsBody && !parameter.anyKeyword) {
          wholeBody = true;
          for (const field of fields.filter((f) => f.where === 'body')) sendable.set(field.name, [name]);
          continue;
        }
        if (parameter.anyKeyword) {
          if (!(shape.openBody || wholeBody))
            drift.push(
              `${name} (${op}): **${parameter.name} sends any field, but the spec's body takes only its own`,
            );
          continue;
        }
        const field = fieldOf(parameter.name, aliases);
        const spec = fields.find((f) => f.name === field);
        if (spec === undefined) {
          drift.push(
            `${name} (${op}): sends \`${field}\` (parameter ${parameter.name}), which the spec's ${op} lacks`,
          );
          continue;
        }
        sendable.set(field, [...(sendable.get(field) ?? []), name]);
        if (spec.required && parameter.hasDefault)
          drift.push(
            `${name} (${op}): the spec requires \`${field}\`, but parameter ${parameter.name} has a default`,
          );
      }
      const sendsFields = method.parameters.some((p) => !p.anyKeyword) && fields.length > 0;
      if (sendsFields && !method.body.includes(`"${op}"`))
        drift.push(`${name} (${op}): does not check its arguments against ${op}'s fields`);
    }
    const takesBody = (name: string): boolean =>
      methods.get(name)?.parameters.some((p) => new RegExp(`\\b${bodyType}\\b`).test(p.annotation)) === true;
    if (shape.wholeBody && bodyType !== undefined && !shape.methods.some(takesBody))
      drift.push(`${who}: no method takes the body (${bodyType}) whole`);
    for (const field of fields)
      if (!sendable.has(field.name))
        drift.push(
          `${who}: cannot send the spec's ${field.required ? 'required ' : ''}${field.where} field \`${field.name}\``,
        );
    // The bounds the client checks before sending, against the spec's.
    const rules = checked.get(op);
    if (rules === undefined) {
      drift.push(`${who}: the client checks no field of ${op} (REQUEST_FIELDS has no entry)`);
      continue;
    }
    for (const field of fields) {
      const rule = rules.get(field.name);
      if (rule === undefined) {
        drift.push(`${who}: the client does not check \`${field.name}\``);
        continue;
      }
      if (rule.where !== field.where || rule.required !== field.required)
        drift.push(
          `${who}: \`${field.name}\`: the spec has it ${field.required ? 'required' : 'optional'} in the ${field.where}, the client ${rule.required ? 'required' : 'optional'} in the ${rule.where}`,
        );
      for (const bound of BOUND_NAMES)
        if (show(field.bounds[bound]) !== show(rule.bounds[bound]))
          drift.push(
            `${who}: \`${field.name}\` ${bound}: the spec says ${show(field.bounds[bound])}, the client checks ${show(rule.bounds[bound])}`,
          );
    }
    for (const name of rules.keys())
      if (!fields.some((f) => f.name === name))
        drift.push(`${who}: the client checks \`${name}\`, which the spec's ${op} lacks`);
  }
  return drift;
}

const document = loadSpec().document;
const admin = read(ADMIN);
const specTypes = read(SPEC_TYPES);
const drift = (doc: OpenApiDocument): string[] => pythonFieldDrift(doc, admin, specTypes);

/** A copy of the spec with `edit` applied to one of its components' object schemas. */
const edited = (name: string, edit: (schema: ObjectSchema) => void): OpenApiDocument =>
  editedSchema(document, name, edit);

describe("the Python admin client's methods take every field of their operation, and only those", () => {
  it('finds no difference between the client and the spec', () => {
    expect(drift(document)).toEqual([]);
  });

  it('reads every field of every admin operation (the comparison is not vacuous)', () => {
    const fields = requestShapes(document).flatMap((s) => s.fields.map((f) => `${s.operationId}.${f.name}`));
    expect(fields).toEqual(
      expect.arrayContaining(['createFault.after', 'createFault.seed', 'createRateLimit.windowSeconds']),
    );
    const checked = checkedFields(specTypes);
    expect([...checked.values()].reduce((n, m) => n + m.size, 0)).toBe(fields.length);
  });
});

describe('a change to the spec alone fails here, naming the method and the field', () => {
  it('a renamed field: `windowSeconds` to `window`', () => {
    const renamed = edited('RateLimitInput', (input) => {
      input.properties = Object.fromEntries(
        Object.entries(input.properties).map(([k, v]) => [k === 'windowSeconds' ? 'window' : k, v]),
      );
      input.required = input.required.map((n) => (n === 'windowSeconds' ? 'window' : n));
    });
    expect(drift(renamed)).toEqual(
      expect.arrayContaining([
        "add_rate_limit (createRateLimit): sends `windowSeconds` (parameter window_seconds), which the spec's createRateLimit lacks",
        "add_rate_limit (createRateLimit): cannot send the spec's required body field `window`",
      ]),
    );
  });

  it("a changed bound: `limit`'s minimum", () => {
    const rebounded = edited('RateLimitInput', (input) => {
      input.properties.limit = { ...input.properties.limit, minimum: 0 };
    });
    expect(drift(rebounded)).toEqual([
      'add_rate_limit (createRateLimit): `limit` minimum: the spec says 0, the client checks 1',
    ]);
    // The journal's page size, a query parameter, likewise.
    const query = structuredClone(document) as OpenApiDocument;
    const list = query.paths['/__admin/requests']?.get as {
      parameters: Array<{ name: string; schema: object }>;
    };
    for (const parameter of list.parameters)
      if (parameter.name === 'limit') parameter.schema = { ...parameter.schema, minimum: 0 };
    expect(drift(query)).toEqual([
      'requests (listRequests): `limit` minimum: the spec says 0, the client checks 1',
    ]);
  });

  it('a required field added to POST /__admin/faults', () => {
    const added = edited('FaultInput', (input) => {
      input.properties.reason = { type: 'string', maxLength: 200 };
      input.required.push('reason');
    });
    expect(drift(added)).toEqual(
      expect.arrayContaining([
        "add_fault (createFault): cannot send the spec's required body field `reason`",
        'add_fault (createFault): the client does not check `reason`',
      ]),
    );
  });
});

describe('a change to the client alone fails here too', () => {
  it('a renamed parameter, a parameter the spec lacks, a lost parameter', () => {
    const changed = admin
      .replace('        window_seconds: int,\n', '        window: int,\n')
      .replace('        after: Optional[int] = None,\n', '');
    expect(changed).not.toBe(admin);
    expect(pythonFieldDrift(document, changed, specTypes)).toEqual([
      "add_fault (createFault): cannot send the spec's body field `after`",
      "add_rate_limit (createRateLimit): sends `window` (parameter window), which the spec's createRateLimit lacks",
      "add_rate_limit (createRateLimit): cannot send the spec's required body field `windowSeconds`",
    ]);
  });

  it('a required field behind a default, a method that does not check its arguments', () => {
    const changed = admin
      .replace('        per: str,\n', '        per: str = "key",\n')
      .replace('_fields("deleteFault", "remove_fault"', '_fields("deleteFaults", "remove_fault"');
    expect(pythonFieldDrift(document, changed, specTypes)).toEqual([
      "remove_fault (deleteFault): does not check its arguments against deleteFault's fields",
      'add_rate_limit (createRateLimit): the spec requires `per`, but parameter per has a default',
    ]);
  });

  it('a bound of the committed module edited by hand', () => {
    const changed = specTypes.replace(
      '"windowSeconds": FieldRule("body", True, minimum=1, maximum=86400)',
      '"windowSeconds": FieldRule("body", True, minimum=1, maximum=86401)',
    );
    expect(changed).not.toBe(specTypes);
    expect(pythonFieldDrift(document, admin, changed)).toEqual([
      'add_rate_limit (createRateLimit): `windowSeconds` maximum: the spec says 86400, the client checks 86401',
    ]);
  });
});

describe('reading Python signatures', () => {
  it('reads parameters with annotations, defaults, bracketed types and **keywords', () => {
    const source = [
      'class AdminClient:',
      '    def add(',
      '        self,',
      '        per: str,',
      '        headers: Optional[Mapping[str, str]] = None,',
      '        **more: Any,',
      '    ) -> str:',
      '        return "createFault"',
      '',
      '    def health(self) -> Health:',
      '        pass',
      'def outside(x): pass',
    ].join('\n');
    const methods = methodsOf(source, 'AdminClient');
    expect([...methods.keys()]).toEqual(['add', 'health']);
    expect(methods.get('add')?.parameters).toEqual([
      { name: 'per', annotation: 'str', hasDefault: false, anyKeyword: false },
      { name: 'headers', annotation: 'Optional[Mapping[str, str]]', hasDefault: true, anyKeyword: false },
      { name: 'more', annotation: 'Any', hasDefault: false, anyKeyword: true },
    ]);
    expect(methods.get('add')?.body).toContain('"createFault"');
    expect(methods.get('health')?.parameters).toEqual([]);
  });
});
