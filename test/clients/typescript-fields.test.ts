/**
 * The TypeScript admin client (`src/client/admin-client.ts`) is held to the spec's fields, not
 * only its operations' names (helpers-parity.test.ts). The compiler reads the client's
 * `AdminClient` interface: each method an operation names in `x-client` is compared with that
 * operation's request (path and query parameters, body properties) both ways: a field the spec has
 * that none of the operation's methods can send, a property the client sends that the spec lacks,
 * a field the spec requires that the client's type lets a caller leave out, and a field whose
 * values the spec lists (an enum) typed with other values. Each finding names the method, the
 * operation and the field. The client checks no bounds itself (the fake refuses a value out of
 * bounds, naming it), so bounds are not compared here. The changes a spec edit makes most often,
 * and one made to the client alone, are made to copies here, so this test keeps proving it catches
 * them.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import { type RequestField, requestShapes } from '../../scripts/python-spec-types.js';
import { loadSpec, type OpenApiDocument } from '../../src/contract/spec-document.js';
import { editedSchema } from '../support/spec-edits.js';

const CLIENT = fileURLToPath(new URL('../../src/client/admin-client.ts', import.meta.url));

/**
 * The client's parameters that carry one field under another name (a primitive parameter is
 * otherwise its field's name; `id` is the operation's one path parameter).
 */
const FIELD_OF_PARAMETER: Record<string, Record<string, string>> = {
  advanceClock: { seconds: 'advanceSeconds' },
  setClock: { unixSeconds: 'now' },
};

/** What one parameter of a client method sends. */
interface SentField {
  name: string;
  optional: boolean;
  /** The string literals the type allows, when it is a union of them. */
  literals?: string[] | undefined;
  /** A parameter of its own (a number, a string), not a property of an object parameter. */
  primitive?: boolean;
}

interface ClientMethod {
  /** Per overload, the fields its parameters send. */
  overloads: SentField[][];
}

/** The string literals a type allows, or undefined when it allows any string (or is no string). */
function literalsOf(type: ts.Type): string[] | undefined {
  const parts = type.isUnion() ? type.types : [type];
  const strings = parts.filter((t) => !(t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null)));
  if (strings.length === 0 || !strings.every((t) => t.isStringLiteral())) return undefined;
  return strings.map((t) => (t as ts.StringLiteralType).value).sort();
}

/**
 * The methods of the client's `AdminClient` interface, read by the compiler; `changed` puts other
 * text in place of some files (by absolute path), as an edit would.
 */
function clientMethods(changed: Record<string, string> = {}): Map<string, ClientMethod> {
  const options: ts.CompilerOptions = {
    strict: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  host.readFile = (name) => changed[name] ?? readFile(name);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, language, onError, fresh) => {
    const text = changed[name];
    return text === undefined
      ? getSourceFile(name, language, onError, fresh)
      : ts.createSourceFile(name, text, language, true);
  };
  const program = ts.createProgram([CLIENT], options, host);
  const checker = program.getTypeChecker();
  const file = program.getSourceFile(CLIENT);
  const declaration = file?.statements.find(
    (s): s is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(s) && s.name.text === 'AdminClient',
  );
  if (declaration === undefined) throw new Error('src/client/admin-client.ts has no AdminClient interface');
  const methods = new Map<string, ClientMethod>();
  const clientType = checker.getTypeAtLocation(declaration);
  for (const symbol of clientType.getProperties()) {
    const type = checker.getTypeOfSymbol(symbol);
    const overloads = type.getCallSignatures().map((signature) =>
      signature.getParameters().flatMap((parameter): SentField[] => {
        const at = parameter.valueDeclaration ?? declaration;
        const declared = checker.getTypeOfSymbolAtLocation(parameter, at);
        const optionalParameter =
          ts.isParameter(at) && (at.questionToken !== undefined || at.initializer !== undefined);
        const whole = checker.getNonNullableType(declared);
        const isObject =
          (whole.flags & ts.TypeFlags.Object) !== 0 ||
          whole.isIntersection() ||
          (whole.isUnion() && whole.types.every((t) => (t.flags & ts.TypeFlags.Object) !== 0));
        if (!isObject)
          return [
            {
              name: parameter.name,
              optional: optionalParameter,
              literals: literalsOf(whole),
              primitive: true,
            },
          ];
        return checker.getPropertiesOfType(whole).map((property) => {
          const propertyType = checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(property, at));
          return {
            name: property.name,
            optional: optionalParameter || (property.flags & ts.SymbolFlags.Optional) !== 0,
            literals: literalsOf(propertyType),
          };
        });
      }),
    );
    methods.set(symbol.name, { overloads });
  }
  return methods;
}

/** The operations' client methods (`x-client`), next to their request fields. */
function clientShapes(document: OpenApiDocument): {
  operationId: string;
  methods: string[];
  fields: RequestField[];
  openBody: boolean;
  wholeBody: boolean;
}[] {
  const byId = new Map<string, string[]>();
  for (const item of Object.values(document.paths ?? {}))
    for (const operation of Object.values(
      item as Record<string, { operationId?: string; 'x-client'?: string[] }>,
    ))
      if (typeof operation === 'object' && operation?.operationId && Array.isArray(operation['x-client']))
        byId.set(operation.operationId, operation['x-client']);
  return requestShapes(document).map((shape) => ({ ...shape, methods: byId.get(shape.operationId) ?? [] }));
}

/**
 * Every way the client's methods differ from the spec's admin operations' fields, one line each
 * naming the method, the operation and the field.
 */
function typescriptFieldDrift(document: OpenApiDocument, methods: Map<string, ClientMethod>): string[] {
  const drift: string[] = [];
  const shapes = clientShapes(document);
  for (const shape of shapes) {
    const { operationId: op, fields } = shape;
    const who = `${shape.methods.join('/')} (${op})`;
    const sendable = new Set<string>();
    const pathFields = fields.filter((f) => f.where === 'path');
    for (const name of shape.methods) {
      const method = methods.get(name);
      if (method === undefined) {
        drift.push(`${who}: the client has no method ${name}`);
        continue;
      }
      for (const overload of method.overloads)
        for (const sent of overload) {
          let field = FIELD_OF_PARAMETER[name]?.[sent.name] ?? sent.name;
          if (sent.primitive && field === 'id' && pathFields.length === 1)
            field = pathFields[0]?.name ?? field;
          const spec = fields.find((f) => f.name === field);
          if (spec === undefined) {
            // A method several operations name (`settings` reads and changes) sends each field to
            // the operation that has it.
            if (shape.wholeBody && !sent.primitive) continue; // the body's own shape, taken whole
            if (
              shapes.some(
                (other) =>
                  other !== shape &&
                  other.methods.includes(name) &&
                  other.fields.some((f) => f.name === field),
              )
            )
              continue;
            drift.push(`${name} (${op}): sends \`${field}\`, which the spec's ${op} lacks`);
            continue;
          }
          sendable.add(field);
          if (spec.required && sent.optional)
            drift.push(
              `${name} (${op}): the spec requires \`${field}\`, but the client's type makes it optional`,
            );
          const values = spec.bounds.enum?.filter((v): v is string => typeof v === 'string');
          if (
            values !== undefined &&
            values.length === spec.bounds.enum?.length &&
            sent.literals !== undefined
          ) {
            const specValues = [...values].sort();
            if (sent.literals.some((v) => !specValues.includes(v)))
              drift.push(
                `${name} (${op}): \`${field}\` is typed ${sent.literals.join('|')}, but the spec allows ${specValues.join('|')}`,
              );
          }
        }
    }
    if (shape.methods.length === 0) continue;
    for (const field of fields)
      if (!sendable.has(field.name) && !(shape.wholeBody && field.where === 'body'))
        drift.push(
          `${who}: cannot send the spec's ${field.required ? 'required ' : ''}${field.where} field \`${field.name}\``,
        );
  }
  // Overloads of one method send the same field alike: one line for it.
  return [...new Set(drift)];
}

describe('the TypeScript admin client, field by field', () => {
  let document: OpenApiDocument;
  let methods: Map<string, ClientMethod>;
  beforeAll(() => {
    document = loadSpec().document;
    methods = clientMethods();
  });

  it('takes every field of each admin operation and no other, as the spec declares them', () => {
    expect(typescriptFieldDrift(document, methods)).toEqual([]);
  });

  it('fails, naming the method and the field, when the spec renames a rate limit field', () => {
    const changed = editedSchema(document, 'RateLimitInput', (input) => {
      input.properties = Object.fromEntries(
        Object.entries(input.properties).map(([k, v]) => [k === 'windowSeconds' ? 'window' : k, v]),
      );
      input.required = input.required.map((n) => (n === 'windowSeconds' ? 'window' : n));
    });
    const drift = typescriptFieldDrift(changed, methods);
    expect(drift).toEqual([
      "addRateLimit (createRateLimit): sends `windowSeconds`, which the spec's createRateLimit lacks",
      "addRateLimit (createRateLimit): cannot send the spec's required body field `window`",
    ]);
  });

  it('fails, naming the method and the field, when the spec adds a required field to a fault', () => {
    const changed = editedSchema(document, 'FaultInput', (input) => {
      input.properties.reason = { type: 'string', maxLength: 200 };
      input.required.push('reason');
    });
    expect(typescriptFieldDrift(changed, methods)).toEqual([
      "addFault (createFault): cannot send the spec's required body field `reason`",
    ]);
  });

  it('fails, naming the method and the field, when the spec requires a field or drops a value', () => {
    const changed = editedSchema(document, 'FaultInput', (input) => {
      input.required.push('status');
    });
    const report = changed.paths['/__admin/report']?.get as {
      parameters: Array<{ name?: string; schema?: { enum?: string[] } }>;
    };
    for (const parameter of report.parameters)
      if (parameter.name === 'format' && parameter.schema?.enum)
        parameter.schema.enum = parameter.schema.enum.filter((value) => value !== 'markdown');
    expect(typescriptFieldDrift(changed, methods)).toEqual([
      'report (getReport): `format` is typed ctrf|junit|markdown, but the spec allows ctrf|json|junit',
      "addFault (createFault): the spec requires `status`, but the client's type makes it optional",
    ]);
  });

  it('fails, naming the method and the field, when only the client changes a field', () => {
    const file = fileURLToPath(new URL('../../src/harness/controls/rate-limits.ts', import.meta.url));
    const renamed = readFileSync(file, 'utf8').replace(/\bwindowSeconds\b/g, 'windowSecs');
    const drift = typescriptFieldDrift(document, clientMethods({ [file]: renamed }));
    expect(drift).toEqual([
      "addRateLimit (createRateLimit): sends `windowSecs`, which the spec's createRateLimit lacks",
      "addRateLimit (createRateLimit): cannot send the spec's required body field `windowSeconds`",
    ]);
  });
});
