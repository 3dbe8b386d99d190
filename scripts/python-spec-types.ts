/**
 * Writes clients/python/src/passportal_fake/_spec_types.py from spec/openapi.yaml's admin
 * operations (tag `admin`):
 *
 * - a `TypedDict` for every request body and every JSON answer, and one for each operation's
 *   query parameters, so the Python admin client's arguments and answers are typed from the spec
 *   and strict mypy checks the bodies it builds;
 * - `REQUEST_FIELDS`: every field each operation takes (path, query, body) with the bounds the
 *   spec gives it (minimum, maximum, length, enum), which the client checks before it sends.
 *
 * `npm run generate` writes it; test/generated-files.test.ts fails when it is stale, and
 * test/clients/python-fields.test.ts holds the client's methods to the same fields.
 */
import { ADMIN_TAG, listOperations, type Operation } from '../src/contract/operations.js';
import { type OpenApiDocument, resolveRef } from '../src/contract/spec-document.js';

export const PYTHON_SPEC_TYPES_FILE = 'clients/python/src/passportal_fake/_spec_types.py';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export type FieldPlace = 'path' | 'query' | 'body';

/** The bounds of a field the Python client checks: those the spec states, nothing else. */
export interface FieldBounds {
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  enum?: readonly (string | number | boolean)[];
}

export interface RequestField {
  name: string;
  where: FieldPlace;
  required: boolean;
  bounds: FieldBounds;
  /** The JSON type the spec gives it (`integer`, `string`, ...; `a|b` for several, `any` for none). */
  type: string;
}

/** What an admin operation's request takes. */
export interface RequestShape {
  operationId: string;
  /** `x-python`: the client methods that call it. */
  methods: string[];
  fields: RequestField[];
  /** The body's schema has no properties of its own (a fixture set): it is taken whole. */
  wholeBody: boolean;
  /** The body takes properties beyond those listed (a built-in scenario's parameters). */
  openBody: boolean;
}

export const adminOperations = (document: OpenApiDocument): Operation[] =>
  listOperations(document).filter((op) => op.tags.includes(ADMIN_TAG));

const BOUND_KEYS = ['minimum', 'maximum', 'minLength', 'maxLength'] as const;

function boundsOf(document: OpenApiDocument, raw: unknown): FieldBounds {
  const schema = resolveRef<Obj>(document, raw);
  const bounds: FieldBounds = {};
  for (const key of BOUND_KEYS) if (typeof schema[key] === 'number') bounds[key] = schema[key] as number;
  if (Array.isArray(schema.enum)) bounds.enum = schema.enum as FieldBounds['enum'];
  return bounds;
}

function typeOf(document: OpenApiDocument, raw: unknown): string {
  const schema = resolveRef<Obj>(document, raw);
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter(
    (t): t is string => typeof t === 'string' && t !== 'null',
  );
  if (types.length === 0 && Array.isArray(schema.enum))
    return [...new Set(schema.enum.map((v) => (typeof v === 'number' ? 'number' : typeof v)))].join('|');
  return types.length > 0 ? types.join('|') : 'any';
}

/** The JSON body schema of an operation, resolved, or undefined. */
function bodySchema(document: OpenApiDocument, op: Operation): Obj | undefined {
  const raw = op.requestBody?.content.get('application/json');
  return raw === undefined ? undefined : resolveRef<Obj>(document, raw);
}

/** Each admin operation's fields: its path and query parameters and its body's properties. */
export function requestShapes(document: OpenApiDocument): RequestShape[] {
  return adminOperations(document).map((op) => {
    const fields: RequestField[] = op.parameters
      .filter((p) => p.in === 'path' || p.in === 'query')
      .map((p) => ({
        name: p.name,
        where: p.in as FieldPlace,
        required: p.required,
        bounds: boundsOf(document, p.schema),
        type: typeOf(document, p.schema),
      }));
    const body = bodySchema(document, op);
    let wholeBody = false;
    let openBody = false;
    if (body !== undefined) {
      // A oneOf body (the clock's): every branch's properties, none required of all.
      const branches = Array.isArray(body.oneOf)
        ? body.oneOf.map((b) => resolveRef<Obj>(document, b))
        : [body];
      const oneOf = branches.length > 1 || Array.isArray(body.oneOf);
      for (const branch of branches) {
        const properties = isObj(branch.properties) ? branch.properties : {};
        const required = new Set(Array.isArray(branch.required) ? branch.required : []);
        for (const [name, schema] of Object.entries(properties)) {
          if (fields.some((f) => f.where === 'body' && f.name === name)) continue;
          fields.push({
            name,
            where: 'body',
            required: !oneOf && required.has(name),
            bounds: boundsOf(document, schema),
            type: typeOf(document, schema),
          });
        }
        if (branch.additionalProperties === true) openBody = true;
      }
      wholeBody = fields.every((f) => f.where !== 'body');
    }
    const methods = Array.isArray(op.raw['x-python']) ? (op.raw['x-python'] as string[]) : [];
    return { operationId: op.operationId, methods, fields, wholeBody, openBody };
  });
}

// ------------------------------------------------------------------------------ Python types

const pascal = (text: string): string =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => `${part.charAt(0).toUpperCase()}${part.slice(1)}`)
    .join('');

const PY_KEYWORDS = new Set([
  'from',
  'class',
  'def',
  'in',
  'is',
  'not',
  'and',
  'or',
  'if',
  'else',
  'for',
  'import',
]);

const pyLiteral = (value: unknown): string => {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (value === null) return 'None';
  return String(value);
};

/** Writes Python type declarations for schemas, each named type once, after those it uses. */
class TypeWriter {
  readonly blocks: string[] = [];
  private readonly named = new Map<unknown, string>();
  private readonly taken = new Set<string>();

  constructor(private readonly document: OpenApiDocument) {}

  /** The name a $ref gives, or the hint. */
  private nameFor(raw: unknown, hint: string): string {
    if (isObj(raw) && typeof raw.$ref === 'string') return raw.$ref.split('/').pop() ?? hint;
    return hint;
  }

  /** The Python type of a schema; declares a named type for an object with properties. */
  type(raw: unknown, hint: string): string {
    const schema = resolveRef<Obj>(this.document, raw);
    const known = this.named.get(schema);
    if (known !== undefined) return known;
    if ('const' in schema) return `Literal[${pyLiteral(schema.const)}]`;
    if (Array.isArray(schema.enum)) {
      const literal = `Literal[${schema.enum.map(pyLiteral).join(', ')}]`;
      if (literal.length <= 60) return literal;
      // A long list gets a name of its own, one value a line.
      const name = this.nameFor(raw, hint);
      return this.declare(
        schema,
        name,
        `${name} = Literal[\n${schema.enum.map((v) => `    ${pyLiteral(v)},`).join('\n')}\n]`,
      );
    }
    const variants = Array.isArray(schema.oneOf)
      ? schema.oneOf
      : Array.isArray(schema.anyOf)
        ? schema.anyOf
        : null;
    if (variants) {
      const name = this.nameFor(raw, hint);
      const types = variants.map((v, i) => {
        const branch = resolveRef<Obj>(this.document, v);
        const first = Array.isArray(branch.required) ? String(branch.required[0]) : String(i + 1);
        return this.type(v, `${name}${pascal(first)}`);
      });
      return this.declare(schema, name, `${name} = Union[${types.join(', ')}]`);
    }
    if (Array.isArray(schema.allOf) || isObj(schema.properties)) return this.object(raw, schema, hint);
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    const nullable = types.includes('null');
    const base = types.filter((t) => t !== 'null');
    const one = (t: unknown): string => {
      switch (t) {
        case 'string':
          return 'str';
        case 'integer':
          return 'int';
        case 'number':
          return 'float';
        case 'boolean':
          return 'bool';
        case 'array':
          return `List[${this.type(schema.items ?? {}, `${hint}Item`)}]`;
        case 'object':
          return isObj(schema.additionalProperties)
            ? `Dict[str, ${this.type(schema.additionalProperties, `${hint}Value`)}]`
            : 'Dict[str, Any]';
        default:
          return 'Any';
      }
    };
    const made = base.length === 1 ? one(base[0]) : 'Any';
    const typed = nullable && made !== 'Any' ? `Optional[${made}]` : made;
    // A named object schema without properties (a fixture set) is an alias, so the client names it.
    if (isObj(raw) && typeof raw.$ref === 'string' && made === 'Dict[str, Any]') {
      const name = this.nameFor(raw, hint);
      return this.declare(schema, name, `${name} = Dict[str, Any]`);
    }
    return typed;
  }

  private object(raw: unknown, schema: Obj, hint: string): string {
    const name = this.nameFor(raw, hint);
    // allOf parts' properties, with the outer schema's `required` added (the settings' state).
    const parts = [schema, ...(Array.isArray(schema.allOf) ? schema.allOf : [])].map((p) =>
      resolveRef<Obj>(this.document, p),
    );
    const properties: Record<string, unknown> = {};
    const required = new Set<string>();
    for (const part of parts) {
      Object.assign(properties, isObj(part.properties) ? part.properties : {});
      for (const r of Array.isArray(part.required) ? part.required : []) required.add(String(r));
    }
    // Claims the name before the properties' types, so a schema met again refers to it.
    this.named.set(schema, name);
    const lines = (names: string[]): string =>
      names.length === 0
        ? '    pass'
        : names
            .map((key) => {
              if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(key) || PY_KEYWORDS.has(key))
                throw new Error(`${name}: the property ${key} is not a Python identifier`);
              return `    ${key}: ${this.type(properties[key], `${name}${pascal(key)}`)}`;
            })
            .join('\n');
    const all = Object.keys(properties);
    const must = all.filter((k) => required.has(k));
    const may = all.filter((k) => !required.has(k));
    const description = typeof schema.description === 'string' ? schema.description : '';
    const doc = description ? `    """${docLine(description)}"""\n` : '';
    let text: string;
    if (must.length === 0) text = `class ${name}(TypedDict, total=False):\n${doc}${lines(may)}`;
    else if (may.length === 0) text = `class ${name}(TypedDict):\n${doc}${lines(must)}`;
    else
      text = `class _${name}Required(TypedDict):\n${lines(must)}\n\n\nclass ${name}(_${name}Required, total=False):\n${doc}${lines(may)}`;
    this.taken.add(name);
    this.blocks.push(text);
    return name;
  }

  private declare(schema: Obj, name: string, text: string): string {
    this.named.set(schema, name);
    if (!this.taken.has(name)) {
      this.taken.add(name);
      this.blocks.push(text);
    }
    return name;
  }
}

/** A description's first sentence on one line, short enough for the line length. */
function docLine(description: string): string {
  const flat = description.replace(/\s+/g, ' ').trim().replace(/"""/g, "'''");
  const sentence = /^(.*?\.)(\s|$)/.exec(flat)?.[1] ?? flat;
  return sentence.length > 100 ? `${sentence.slice(0, 97).trimEnd()}...` : sentence;
}

/** The JSON answer schema of an operation's success status, or undefined. */
function answerSchema(document: OpenApiDocument, op: Operation): unknown {
  const responses = isObj(op.raw.responses) ? op.raw.responses : {};
  const success = Object.keys(responses).find((status) => /^2\d\d$/.test(status));
  if (success === undefined) return undefined;
  const response = resolveRef<Obj>(document, responses[success]);
  const content = isObj(response.content) ? response.content : {};
  const json = content['application/json'];
  return isObj(json) ? json.schema : undefined;
}

const rule = (field: RequestField): string => {
  const parts = [JSON.stringify(field.where), field.required ? 'True' : 'False'];
  for (const key of BOUND_KEYS)
    if (field.bounds[key] !== undefined) parts.push(`${key}=${field.bounds[key]}`);
  if (field.bounds.enum) {
    const values = field.bounds.enum.map(pyLiteral);
    parts.push(`enum=(${values.join(', ')}${values.length === 1 ? ',' : ''})`);
  }
  return `        ${JSON.stringify(field.name)}: FieldRule(${parts.join(', ')}),`;
};

/** The generated module's text for a spec. */
export function pythonSpecTypesModule(document: OpenApiDocument): string {
  const writer = new TypeWriter(document);
  for (const op of adminOperations(document)) {
    const id = pascal(op.operationId);
    const query = op.parameters.filter((p) => p.in === 'query');
    if (query.length > 0) {
      const queryType = `${id}Query`;
      const properties = Object.fromEntries(query.map((p) => [p.name, p.schema]));
      const required = query.filter((p) => p.required).map((p) => p.name);
      writer.type(
        { type: 'object', properties, required, description: `The query of ${op.operationId}.` },
        queryType,
      );
    }
    const body = op.requestBody?.content.get('application/json');
    if (body !== undefined) writer.type(resolveRequestRef(document, op), `${id}Body`);
    const answer = answerSchema(document, op);
    if (answer !== undefined) writer.type(answer, `${id}Answer`);
  }
  const rules = requestShapes(document)
    .map((shape) => {
      const entries = shape.fields.map(rule).join('\n');
      return `    ${JSON.stringify(shape.operationId)}: {${entries ? `\n${entries}\n    ` : ''}},`;
    })
    .join('\n');
  return `# Made by scripts/python-spec-types.ts from spec/openapi.yaml; do not edit (npm run generate).
"""The admin API's request bodies, query parameters and answers as \`TypedDict\`s, and the bounds of
every field each admin operation takes, from the spec (\`spec/openapi.yaml\`, tag \`admin\`)."""

from __future__ import annotations

from typing import Any, Dict, List, Literal, NamedTuple, Optional, Tuple, TypedDict, Union

# Python 3.9 has no \`NotRequired\`: a type with required and optional keys is a required base
# class and a \`total=False\` class on it.


${writer.blocks.join('\n\n\n')}


class FieldRule(NamedTuple):
    """Where a field goes, whether the spec requires it, and the bounds the spec gives it."""

    where: str
    required: bool
    minimum: Optional[float] = None
    maximum: Optional[float] = None
    minLength: Optional[int] = None
    maxLength: Optional[int] = None
    enum: Optional[Tuple[Any, ...]] = None


# Per operation id: each field it takes, by its name in the spec.
REQUEST_FIELDS: Dict[str, Dict[str, FieldRule]] = {
${rules}
}
`;
}

/**
 * The name the module gives an operation's JSON body type (its component's, else
 * `<OperationId>Body`), or undefined for an operation without one.
 */
export function bodyTypeName(document: OpenApiDocument, operationId: string): string | undefined {
  const op = adminOperations(document).find((o) => o.operationId === operationId);
  if (op?.requestBody?.content.get('application/json') === undefined) return undefined;
  const raw = resolveRequestRef(document, op);
  return isObj(raw) && typeof raw.$ref === 'string'
    ? raw.$ref.split('/').pop()
    : `${pascal(operationId)}Body`;
}

/** The request body's schema as written (a $ref keeps its component's name). */
function resolveRequestRef(document: OpenApiDocument, op: Operation): unknown {
  const body = resolveRef<Obj>(document, op.raw.requestBody);
  const content = isObj(body.content) ? body.content : {};
  const json = content['application/json'];
  return isObj(json) ? json.schema : {};
}
