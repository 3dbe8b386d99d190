import type { Options, ValidateFunction } from 'ajv/dist/2020.js';
import { ApiError, capViolations } from '../errors.js';
import { inlineRefs, loadAddFormats, loadAjv, loadStandaloneCode } from '../json-schema.js';
import { addNotice, type NoticeSink, notice } from '../notices.js';
import {
  hasPrecompiled,
  loadPrecompiled,
  type PrecompiledModule,
  precompiledModuleSource,
  REQUEST_VALIDATORS_PATH,
  sourceKey,
} from '../precompiled-validators.js';
import { listOperations, type Operation, type ParameterDef } from './operations.js';
import { type OpenApiDocument, resolveRef } from './spec-document.js';
import { describeErrors, parameterError, pruneAlternatives, unsupported } from './validation-errors.js';

/** The base URI under which the whole spec is registered, so `$ref`s into components resolve. */
const SPEC_URI = 'https://passportal-docs-fake.local/openapi.json';

export interface RawRequest {
  params: Record<string, string>;
  query: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  /** The parsed body, `undefined` when none was sent. */
  body: unknown;
  /** The request's media type without parameters, lower-cased; undefined when absent. */
  mediaType: string | undefined;
}

/** What a handler receives: values checked against the spec (query values coerced to their types). */
export interface ValidRequest {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
}

/** Checks a request; notices about how it was read (query spellings, repeats) go to `sink`. */
export type RequestValidator = (request: RawRequest, sink?: NoticeSink) => ValidRequest;

/**
 * Reads an operation's query as leniently as the live service, never silently: an empty value
 * (`?orderBy&searchTxt=`, as the vendor's own example sends them) means "not given"; a spelling
 * from `x-aliases` (`clientID`, `orderBY`) is read when the parameter itself is not given; a
 * repeated parameter takes its last value; a parameter the operation does not have is ignored.
 * Each but the first is noted. One pass over the keys sent, looked up in a map made once.
 */
class QueryReader {
  readonly #byName = new Map<string, ParameterDef>();
  readonly #operation: string;
  readonly #defs: ParameterDef[];

  constructor(defs: ParameterDef[], operation: Operation) {
    this.#defs = defs;
    this.#operation = `${operation.method.toUpperCase()} ${operation.path}`;
    for (const def of defs) {
      this.#byName.set(def.name, def);
      for (const alias of def.aliases) this.#byName.set(alias, def);
    }
  }

  read(source: Record<string, unknown>, sink: NoticeSink): Record<string, unknown> {
    const values: Record<string, unknown> = Object.create(null);
    let aliased: Array<[string, ParameterDef, unknown]> | undefined;
    for (const key of Object.keys(source)) {
      const def = this.#byName.get(key);
      if (def === undefined) {
        this.#noteUnknown(key, sink);
        continue;
      }
      const value = lastValue(key, source[key], sink);
      if (value === undefined) continue;
      if (key === def.name) {
        values[key] = def.caseInsensitive && typeof value === 'string' ? lowerCased(key, value, sink) : value;
      } else {
        aliased ??= [];
        aliased.push([key, def, value]);
      }
    }
    // Rare: a spelling variant, read once the canonical spellings are known (they win).
    for (const [alias, def, value] of aliased ?? []) {
      if (def.name in values) {
        addNotice(
          sink,
          notice(
            'spellingVariantIgnored',
            `query.${alias}`,
            `ignored: ${def.name} was sent too, and wins; send only ${def.name}`,
          ),
        );
        continue;
      }
      values[def.name] =
        def.caseInsensitive && typeof value === 'string' ? lowerCased(alias, value, sink) : value;
      addNotice(
        sink,
        notice(
          'spellingVariant',
          `query.${alias}`,
          `read as ${def.name}: "${alias}" is a spelling from the vendor's examples, not its parameter table; send ${def.name}`,
        ),
      );
    }
    return values;
  }

  #noteUnknown(name: string, sink: NoticeSink): void {
    const close = this.#defs.find((d) => d.name.toLowerCase() === name.toLowerCase());
    addNotice(
      sink,
      notice(
        'unknownParameter',
        `query.${name}`,
        close
          ? `not a parameter of ${this.#operation}; ignored (parameter names are case-sensitive: did you mean ${close.name}?)`
          : `not a parameter of ${this.#operation}; ignored`,
      ),
    );
  }
}

/**
 * A case-insensitive value (`orderBy`, `orderDir`) in lower case, as the parameter table lists it;
 * another case is read all the same, and noted: validators of the spec refuse it.
 */
function lowerCased(name: string, value: string, sink: NoticeSink): string {
  const lower = value.toLowerCase();
  if (lower !== value) {
    addNotice(
      sink,
      notice(
        'valueCaseVariant',
        `query.${name}`,
        `read as "${lower}": the parameter table lists the value in lower case; send ${name}=${lower}`,
      ),
    );
  }
  return lower;
}

/** A query value as read: the last of repeated values (noted), undefined when empty. */
function lastValue(name: string, raw: unknown, sink: NoticeSink): unknown {
  if (raw === '') return undefined;
  if (!Array.isArray(raw)) return raw;
  const values = raw.filter((v) => v !== '');
  if (values.length > 1) {
    addNotice(
      sink,
      notice(
        'repeatedParameter',
        `query.${name}`,
        `sent ${values.length} times; the last value (${JSON.stringify(values.at(-1))}) is used; send it once`,
      ),
    );
  }
  return values.at(-1);
}

/** Qualifies local `$ref`s so a schema lifted out of the spec still resolves against it. */
function qualifyRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(qualifyRefs);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    out[key] =
      key === '$ref' && typeof inner === 'string' && inner.startsWith('#')
        ? SPEC_URI + inner
        : qualifyRefs(inner);
  }
  return out;
}

const SCHEMA_REF = '#/components/schemas/';

/** A body schema with its references to `components/schemas` inlined (linear checks: `inlineRefs`). */
function inlineSchemaRefs(schema: unknown, document: OpenApiDocument): unknown {
  return inlineRefs(schema, (ref) =>
    ref.startsWith(SCHEMA_REF) ? resolveRef(document, { $ref: ref }) : undefined,
  );
}

const PARAM_LOCATIONS = ['path', 'query', 'header'] as const;
export type ParamLocation = (typeof PARAM_LOCATIONS)[number];

/** One operation's schemas, as its validators are compiled from them (here and at build time). */
export interface OperationSchemas {
  params: Array<{ location: ParamLocation; defs: ParameterDef[]; schema: object | undefined }>;
  /** Media type → body schema. */
  bodies: Array<[string, object]>;
}

export function operationSchemas(operation: Operation, document: OpenApiDocument): OperationSchemas {
  const params = PARAM_LOCATIONS.map((location) => {
    const defs = operation.parameters.filter((p) => p.in === location);
    const schema = {
      type: 'object',
      properties: Object.fromEntries(defs.map((p) => [p.name, qualifyRefs(p.schema)])),
      required: defs.filter((p) => p.required).map((p) => p.name),
    };
    return { location, defs, schema: defs.length > 0 ? schema : undefined };
  });
  const bodies = [...(operation.requestBody?.content ?? [])].map(([mediaType, schema]): [string, object] => [
    mediaType,
    qualifyRefs(inlineSchemaRefs(schema, document)) as object,
  ]);
  return { params, bodies };
}

/** Export names of the precompiled validators: `<operationId> <location>` / `<operationId> <media type>`. */
const paramName = (operation: Operation, location: ParamLocation) => `${operation.operationId} ${location}`;
const bodyName = (operation: Operation, mediaType: string) => `${operation.operationId} ${mediaType}`;

/**
 * An Ajv instance over one spec: parameters arrive as strings and are coerced to their declared
 * types; bodies arrive typed (JSON) and are never coerced, so `"5"` is not an integer there.
 */
function createAjv(document: OpenApiDocument, coerceTypes: boolean, code: Options['code'] = {}) {
  const { Ajv2020 } = loadAjv();
  const addFormats = loadAddFormats();
  const ajv = new Ajv2020({
    allErrors: true,
    strict: false,
    coerceTypes,
    useDefaults: false,
    validateFormats: true,
    // No optimisation passes over the generated code: a third less compile time at start-up;
    // the validators are this small, validation itself takes well under a microsecond.
    code: { optimize: false, ...code },
  });
  addFormats(ajv);
  ajv.addSchema(document as object, SPEC_URI, undefined, false);
  return ajv;
}

/** The key of the validators generated from a spec document; computed once per document. */
const documentKeys = new WeakMap<OpenApiDocument, string>();
export function documentKey(document: OpenApiDocument): string {
  let key = documentKeys.get(document);
  if (key === undefined) {
    key = sourceKey(JSON.stringify(document));
    documentKeys.set(document, key);
  }
  return key;
}

/** Compiles (or finds precompiled) one validator of an operation: its parameters at a location, or a body. */
export interface SchemaCompiler {
  params(operation: Operation, location: ParamLocation, schema: object): ValidateFunction;
  body(operation: Operation, mediaType: string, schema: object): ValidateFunction;
}

/**
 * A validator that loads `resolve`'s on its first call: the build's precompiled module is
 * compiled by Node only when a request first needs one of its validators, not at start-up.
 */
function deferredValidator(resolve: () => ValidateFunction): ValidateFunction {
  let real: ValidateFunction | undefined;
  const validate = ((data: unknown) => {
    real ??= resolve();
    const valid = real(data);
    validate.errors = real.errors;
    return valid;
  }) as ValidateFunction;
  validate.errors = null;
  deferredTargets.set(validate, () => {
    real ??= resolve();
    return real;
  });
  return validate;
}

const deferredTargets = new WeakMap<ValidateFunction, () => ValidateFunction>();

/** The validator that does the work: a deferred one's (loading it now), else the function itself. */
export function underlyingValidator(validate: ValidateFunction): ValidateFunction {
  return deferredTargets.get(validate)?.() ?? validate;
}

/**
 * The build's precompiled validators when they were generated from this very document
 * (`precompiledPath` is for tests), else validators compiled here, Ajv created on first need.
 * Whether the module matches is known at once (its key is on its first line); the module itself
 * is loaded on the first validation. A document without one compiles its validators here and
 * now, so a schema Ajv cannot compile stops the start.
 */
export function createSchemaCompiler(
  document: OpenApiDocument,
  precompiledPath: string = REQUEST_VALIDATORS_PATH,
): SchemaCompiler {
  const key = documentKey(document);
  const found = hasPrecompiled(precompiledPath, key);
  let precompiled: PrecompiledModule | undefined;
  const loaded = () => (precompiled ??= loadPrecompiled(precompiledPath, key));
  // Created on the first validator not found precompiled.
  const ajv: { params?: ReturnType<typeof createAjv>; body?: ReturnType<typeof createAjv> } = {};
  const compile = (kind: 'params' | 'body', schema: object): ValidateFunction => {
    ajv[kind] ??= createAjv(document, kind === 'params');
    return ajv[kind].compile(schema);
  };
  const find = (kind: 'params' | 'body', name: string, schema: object): ValidateFunction =>
    found
      ? deferredValidator(() => loaded()?.[kind]?.[name] ?? compile(kind, schema))
      : compile(kind, schema);
  return {
    params: (operation, location, schema) => find('params', paramName(operation, location), schema),
    body: (operation, mediaType, schema) => find('body', bodyName(operation, mediaType), schema),
  };
}

/** Validators for the operations of one spec (see `createSchemaCompiler`). */
export function createValidatorFactory(
  document: OpenApiDocument,
  precompiledPath: string = REQUEST_VALIDATORS_PATH,
) {
  const compiler = createSchemaCompiler(document, precompiledPath);

  return function compileOperation(operation: Operation): RequestValidator {
    const schemas = operationSchemas(operation, document);
    const groups = schemas.params.map(({ location, defs, schema }) => ({
      location,
      defs,
      validate: schema ? compiler.params(operation, location, schema) : undefined,
    }));
    const bodies = new Map<string, ValidateFunction>();
    for (const [mediaType, schema] of schemas.bodies) {
      bodies.set(mediaType, compiler.body(operation, mediaType, schema));
    }

    const harness = operation.tags.includes('admin');
    const queryReader = new QueryReader(groups.find((g) => g.location === 'query')?.defs ?? [], operation);
    return (request, sink = { notices: undefined }) => {
      const out: ValidRequest = { params: Object.create(null), query: Object.create(null), body: undefined };
      // Read even when the operation declares no query parameter: what was ignored is noted.
      const query = queryReader.read(request.query, sink);
      for (const { location, defs, validate } of groups) {
        if (!validate) continue;
        let values: Record<string, unknown>;
        if (location === 'query') values = query;
        else {
          const source = location === 'path' ? request.params : request.headers;
          values = Object.create(null);
          for (const def of defs) {
            if (!Object.hasOwn(source, def.name)) continue;
            const raw = source[def.name];
            values[def.name] = def.caseInsensitive && typeof raw === 'string' ? raw.toLowerCase() : raw;
          }
        }
        if (!validate(values)) throw parameterError(location, defs, validate.errors ?? [], harness);
        if (location === 'path') out.params = values;
        if (location === 'query') out.query = values;
      }
      const requestBody = operation.requestBody;
      if (requestBody) {
        out.body = checkBody(requestBody.required, bodies, request);
        if (request.mediaType === FORM && bodies.has(JSON_TYPE) && out.body !== undefined) {
          addNotice(
            sink,
            notice(
              'formEncodedBody',
              'header.content-type',
              `the body was sent as ${FORM}, read all the same; the documentation shows JSON bodies: send content-type: ${JSON_TYPE}`,
            ),
          );
        }
      }
      return out;
    };
  };
}

/**
 * The build step: the standalone code (CommonJS) of every operation's validators, compiled with
 * the same options and from the same schemas as `createValidatorFactory` compiles them, keyed by
 * the document. Written to `dist/request-validators.cjs` by scripts/precompile-validators.mjs.
 */
export function precompileRequestValidators(document: OpenApiDocument): string {
  const { _ } = loadAjv();
  const standaloneCode = loadStandaloneCode();
  const code = { source: true, formats: _`require("ajv-formats/dist/formats").fullFormats` };
  const paramAjv = createAjv(document, true, code);
  const bodyAjv = createAjv(document, false, code);
  const params: Record<string, string> = {};
  const bodies: Record<string, string> = {};
  // Each schema is registered under an id of its own so one module can export them all; their
  // `$ref`s are absolute (into SPEC_URI), so the id changes nothing in what they resolve to.
  const register = (
    ajv: ReturnType<typeof createAjv>,
    out: Record<string, string>,
    name: string,
    schema: object,
  ) => {
    const id = `https://passportal-docs-fake.local/precompiled/${out === params ? 'params' : 'body'}/${encodeURIComponent(name)}`;
    ajv.addSchema(schema, id);
    out[name] = id;
  };
  for (const operation of listOperations(document)) {
    const schemas = operationSchemas(operation, document);
    for (const { location, schema } of schemas.params) {
      if (schema) register(paramAjv, params, paramName(operation, location), schema);
    }
    for (const [mediaType, schema] of schemas.bodies) {
      register(bodyAjv, bodies, bodyName(operation, mediaType), schema);
    }
  }
  return precompiledModuleSource(documentKey(document), {
    params: standaloneCode(paramAjv, params),
    body: standaloneCode(bodyAjv, bodies),
  });
}

/** The request validators of one spec, each compiled (or found precompiled) once, on first use. */
export interface OperationValidators {
  of(operation: Operation): RequestValidator;
  /** The body of an operation's request, checked as if sent as `application/json`. */
  jsonBody(operationId: string): (body: unknown) => unknown;
}

/** The validators compiled from each spec document, shared by every server that serves it. */
const validatorsOf = new WeakMap<OpenApiDocument, OperationValidators>();

/**
 * The request validators of a spec document: compiled once per document object in the process
 * (`loadSpec` gives servers of the same spec text the same frozen document), each operation's on
 * first use. They hold no state of a server.
 */
export function createOperationValidators(document: OpenApiDocument): OperationValidators {
  let validators = validatorsOf.get(document);
  if (validators === undefined) {
    validators = compileOperationValidators(document);
    validatorsOf.set(document, validators);
  }
  return validators;
}

function compileOperationValidators(document: OpenApiDocument): OperationValidators {
  const compile = createValidatorFactory(document);
  const byId = new Map<string, RequestValidator>();
  const of = (operation: Operation): RequestValidator => {
    let validate = byId.get(operation.operationId);
    if (validate === undefined) {
      validate = compile(operation);
      byId.set(operation.operationId, validate);
    }
    return validate;
  };
  return {
    of,
    jsonBody(operationId) {
      // Found on first use: the programmatic API may never need it, start-up should not pay for it.
      let validate: RequestValidator | undefined;
      return (body) => {
        if (validate === undefined) {
          const operation = listOperations(document).find((op) => op.operationId === operationId);
          if (!operation) throw new Error(`no operation ${operationId} in the spec`);
          validate = of(operation);
        }
        return validate({ params: {}, query: {}, headers: {}, body, mediaType: 'application/json' }).body;
      };
    },
  };
}

const FORM = 'application/x-www-form-urlencoded';
const JSON_TYPE = 'application/json';

/**
 * A form whose first field name is JSON text: a JSON body sent without its content type (curl's
 * `-d` sends application/x-www-form-urlencoded unless told otherwise). No form field is named so.
 */
function isJsonTextAsForm(body: unknown): boolean {
  if (body === null || typeof body !== 'object') return false;
  return /^\s*[{[]/.test(Object.keys(body)[0] ?? '');
}

function jsonSentAsForm(): ApiError {
  return new ApiError(
    'unsupportedMediaType',
    `the body is JSON but was sent as ${FORM} (curl -d's default); send the header content-type: ${JSON_TYPE}`,
    [{ location: 'header.content-type', message: `must be ${JSON_TYPE} for a JSON body` }],
  );
}

function checkBody(required: boolean, bodies: Map<string, ValidateFunction>, request: RawRequest): unknown {
  const accepted = [...bodies.keys()];
  if (request.body === undefined) {
    if (!required) return undefined;
    if (request.mediaType && !bodies.has(request.mediaType)) throw unsupported(request.mediaType, accepted);
    throw new ApiError('invalidBody', `request body is required (${accepted.join(' or ')})`, [
      { location: 'body', message: 'is required' },
    ]);
  }
  const validate = request.mediaType ? bodies.get(request.mediaType) : undefined;
  if (!validate || Buffer.isBuffer(request.body)) throw unsupported(request.mediaType, accepted);
  if (request.mediaType === FORM && bodies.has(JSON_TYPE) && isJsonTextAsForm(request.body)) {
    throw jsonSentAsForm();
  }
  if (validate(request.body)) return request.body;
  const all = describeErrors(pruneAlternatives(validate.errors ?? []), 'body');
  const violations = capViolations(all);
  const [first] = all;
  const more = all.length > 1 ? ` (and ${all.length - 1} more)` : '';
  throw new ApiError(
    'invalidBody',
    `invalid request body: ${first?.location} ${first?.message}${more}`,
    violations,
  );
}
