import { readFileSync } from 'node:fs';
import { compileErrors, validate } from '@readme/openapi-parser';
import { getHttpOperationsFromSpec } from '@stoplight/prism-http';
import { validateOutput } from '@stoplight/prism-http/dist/validator/index.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { OPTION_SPECS, SETTING_KEYS } from '../src/config.js';
import { TEMPLATE_TYPES } from '../src/domain/types.js';

// ajv-formats is CommonJS: under NodeNext the default import is `module.exports`, the plugin itself.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const specText = readFileSync(new URL('../spec/openapi.yaml', import.meta.url), 'utf8');
const spec = parse(specText) as Obj;

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'];

/** The operations of the API documentation (documents-api.md): [operationId, method, path]. */
const DOCUMENTED_OPERATIONS: Array<[string, string, string]> = [
  ['createClientToken', 'post', '/api/v2/auth/client_token'],
  ['listDocuments', 'get', '/api/v2/documents'],
  ['getDocument', 'get', '/api/v2/documents/{documentId}'],
  ['patchDocument', 'patch', '/api/v2/documents/{documentId}'],
  ['replaceDocuments', 'put', '/api/v2/documents'],
  ['patchDocuments', 'patch', '/api/v2/documents'],
];

/**
 * Every operation of the spec, [operationId, method, path, operation]: the generated operation
 * ids (src/contract/operation-ids.ts) and the handler tables typed over them pin the list, so an
 * operation added to or taken from the spec is a change of those, not of this test.
 */
const OPERATIONS: Array<[string, string, string, Obj]> = Object.entries(spec.paths as Obj).flatMap(
  ([path, item]) =>
    METHODS.filter((method) => isObj((item as Obj)[method])).map((method): [string, string, string, Obj] => {
      const op = (item as Obj)[method] as Obj;
      return [String(op.operationId), method, path, op];
    }),
);
const isAdmin = (op: Obj) => Array.isArray(op.tags) && op.tags.includes('admin');
const VENDOR_OPERATIONS = OPERATIONS.filter(([, , , op]) => !isAdmin(op));
const isDocumented = (id: string) => DOCUMENTED_OPERATIONS.some(([d]) => d === id);
const DOCUMENTED = VENDOR_OPERATIONS.filter(([id]) => isDocumented(id));
/** The vendor operations beyond the documentation's: the live surface. */
const LIVE_OPERATIONS = VENDOR_OPERATIONS.filter(([id]) => !isDocumented(id));

/** The documentation's single-document sample (field notes), with `address_1` written out. */
const SINGLE_DOCUMENT_SAMPLE = {
  success: true,
  templateUid: 'tpl-101',
  id: 101101,
  details: {
    name: { name: 'Name', description: '', value: { type: 'string', text: 'Dundee Office' } },
    tags: [],
    address_1: { name: 'Address 1', description: '', value: { type: 'string', text: '1 High Street' } },
    city: null,
    country: 'Scotland',
  },
  apiRequestUid: '101-101',
};

/** A live reference field (field notes). */
const REFERENCE_ENTRY = {
  value: { text: 'Dell', id: 1843839, type: 'vendors' },
  attribute: [{ text: 'Dell', id: 1843839, type: 'vendors' }],
};

const escapeSegment = (segment: string) => segment.replaceAll('~', '~0').replaceAll('/', '~1');
const pointerOf = (segments: string[]) => segments.map((s) => `/${escapeSegment(s)}`).join('');

function at(pointer: string): unknown {
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce<unknown>(
      (node, part) => (isObj(node) || Array.isArray(node) ? (node as Obj)[part] : undefined),
      spec,
    );
}

/** Follows `$ref`s; returns the object and the JSON pointer where it lives. */
function follow(value: unknown, pointer: string): { value: Obj; pointer: string } {
  let current = { value, pointer };
  for (let depth = 0; isObj(current.value) && typeof current.value.$ref === 'string'; depth++) {
    if (depth > 10) throw new Error(`$ref chain too deep at ${pointer}`);
    const target = current.value.$ref.slice(1);
    current = { value: at(target), pointer: target };
  }
  if (!isObj(current.value)) throw new Error(`${pointer} does not resolve to an object`);
  return current as { value: Obj; pointer: string };
}

interface SchemaUse {
  where: string;
  method?: string;
  path?: string;
  /** Response status key (`200`, `default`) for response media types. */
  status?: string;
  /** JSON pointer of the schema inside the spec. */
  schemaPointer: string;
  examples: Array<{ name: string; value: unknown }>;
}

/** The schema of every parameter and media type (bodies, responses) of every operation, with its examples. */
function collectSchemaUses(): SchemaUse[] {
  const uses: SchemaUse[] = [];
  const addMedia = (
    content: unknown,
    contentPointer: string,
    where: string,
    response?: Partial<SchemaUse>,
  ) => {
    if (!isObj(content)) return;
    for (const [mediaType, media] of Object.entries(content)) {
      if (!isObj(media)) continue;
      const examples: SchemaUse['examples'] = [];
      if ('example' in media) examples.push({ name: 'example', value: media.example });
      for (const [name, example] of Object.entries(isObj(media.examples) ? media.examples : {})) {
        examples.push({ name, value: follow(example, '').value.value });
      }
      uses.push({
        ...response,
        where: `${where} ${mediaType}`,
        schemaPointer: `${contentPointer}${pointerOf([mediaType, 'schema'])}`,
        examples,
      });
    }
  };
  const paths = spec.paths as Obj;
  for (const [path, item] of Object.entries(paths)) {
    const itemPointer = pointerOf(['paths', path]);
    for (const method of METHODS) {
      const op = (item as Obj)[method];
      if (!isObj(op)) continue;
      const where = `${method.toUpperCase()} ${path}`;
      const parameters = (list: unknown, base: string) =>
        (Array.isArray(list) ? list : []).map((p, i) => follow(p, `${base}/parameters/${i}`));
      for (const param of [
        ...parameters((item as Obj).parameters, itemPointer),
        ...parameters(op.parameters, `${itemPointer}/${method}`),
      ]) {
        uses.push({
          where: `${where} parameter ${String(param.value.name)}`,
          schemaPointer: `${param.pointer}/schema`,
          examples: 'example' in param.value ? [{ name: 'example', value: param.value.example }] : [],
        });
      }
      if (op.requestBody !== undefined) {
        const body = follow(op.requestBody, `${itemPointer}/${method}/requestBody`);
        addMedia(body.value.content, `${body.pointer}/content`, `${where} request`);
      }
      for (const [status, raw] of Object.entries(op.responses as Obj)) {
        const response = follow(raw, `${itemPointer}/${method}/responses/${status}`);
        addMedia(response.value.content, `${response.pointer}/content`, `${where} ${status}`, {
          method,
          path,
          status,
        });
      }
    }
  }
  return uses;
}

function createAjv() {
  const ajv = new Ajv2020({ strict: true, allErrors: true });
  ajv.addVocabulary(['example', 'xml', 'externalDocs', 'discriminator']);
  // Resolving `spec#/...` compiles the document root as a schema too; its OpenAPI fields are not
  // JSON Schema keywords, and strict mode would reject them.
  ajv.addVocabulary([
    'openapi',
    'info',
    'jsonSchemaDialect',
    'servers',
    'paths',
    'webhooks',
    'components',
    'security',
    'tags',
  ]);
  addFormats(ajv);
  ajv.addSchema(spec, 'spec');
  return ajv;
}

const ajv = createAjv();
const validatorFor = (pointer: string) => ajv.compile({ $ref: `spec#${encodeURI(pointer)}` });
const schemaValidator = (name: string) => validatorFor(`/components/schemas/${name}`);

function expectValid(name: string, value: unknown) {
  const check = schemaValidator(name);
  expect(check(value), `${name}: ${ajv.errorsText(check.errors)}`).toBe(true);
}
function expectInvalid(name: string, value: unknown) {
  expect(schemaValidator(name)(value), `${name} accepted ${JSON.stringify(value)}`).toBe(false);
}

describe('spec/openapi.yaml', () => {
  it('is a valid OpenAPI 3.1 document with every rule an error and no warnings', async () => {
    const result = await validate(structuredClone(spec) as never, {
      validate: {
        rules: {
          openapi: {
            'array-without-items': 'error',
            'duplicate-non-request-body-parameters': 'error',
            'duplicate-operation-id': 'error',
            'non-optional-path-parameters': 'error',
            'path-parameters-not-in-parameters': 'error',
            'path-parameters-not-in-path': 'error',
          },
        },
      },
    });
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    expect(result.warnings).toEqual([]);
    expect(spec.openapi).toBe('3.1.0');
    // A plain default URL: client generators (orval, openapi-typescript) take it as the base.
    expect(spec.servers).toEqual([expect.objectContaining({ url: 'http://127.0.0.1:4010' })]);
  });

  it.each(DOCUMENTED_OPERATIONS)("holds the documentation's %s at %s %s", (id, method, path) => {
    expect(OPERATIONS.filter(([, m, p]) => m === method && p === path).map(([o]) => o)).toEqual([id]);
  });

  it('names every operation once', () => {
    const ids = OPERATIONS.map(([id]) => id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it.each(DOCUMENTED)('%s (%s %s) documents a 200 example', (_id, _method, _path, op) => {
    const ok = follow((op.responses as Obj)['200'], '').value;
    const media = (ok.content as Record<string, Obj>)['application/json'] ?? {};
    const count =
      ('example' in media ? 1 : 0) + Object.keys(isObj(media.examples) ? media.examples : {}).length;
    expect(count).toBeGreaterThan(0);
  });

  it('guards vendor operations with either token header, admin ones with the optional bearer', () => {
    const schemes = (spec.components as Obj).securitySchemes as Record<string, Obj>;
    expect(schemes.accessToken).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-access-token' });
    expect(schemes.apiToken).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-token' });
    expect(schemes.adminBearer).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const [id, , path, op] of OPERATIONS) {
      const expected =
        id === 'createClientToken' || id === 'getHealth' || id === 'getSwaggerDocument'
          ? []
          : path.startsWith('/__admin')
            ? [{}, { adminBearer: [] }]
            : [{ accessToken: [] }, { apiToken: [] }];
      expect(op.security, id).toEqual(expected);
    }
  });

  it('marks the parameters the request validator reads extensions from', () => {
    const params = (spec.components as Obj).parameters as Record<string, Obj>;
    expect(params.orderBy?.['x-case-insensitive']).toBe(true);
    expect(params.orderDir?.['x-case-insensitive']).toBe(true);
    expect(params.templateUid?.['x-expected']).toBe('tpl-<number>, TPL-<number> or a bare number');
    expect(params.pageNum?.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 9999, default: 1 });
    expect(params.resultsPerPage?.schema).toMatchObject({ type: 'integer', minimum: 1, default: 100 });
    expect(params.clientId?.name).toBe('clientId');
    expect(params.clientId?.['x-aliases']).toEqual(['clientID']);
    expect(params.orderBy?.['x-aliases']).toEqual(['orderBY']);
    expect(params.templateUid?.['x-aliases']).toEqual(['templateUID']);
  });

  it.each(LIVE_OPERATIONS)(
    '%s (%s %s) is marked as observed on the live service',
    (_id, _method, _path, op) => {
      expect(String(op['x-live-service'])).toMatch(/not in the (API )?documentation/);
    },
  );

  it('lists the 19 template types of the domain model', () => {
    const schemas = (spec.components as Obj).schemas as Record<string, Obj>;
    expect(schemas.TemplateType?.enum).toEqual([...TEMPLATE_TYPES]);
    expect(at('/components/parameters/type/x-documented-values')).toEqual([...TEMPLATE_TYPES]);
    expect(at('/components/parameters/templateUid/schema/pattern')).toBe(schemas.TemplateUidText?.pattern);
  });

  it('keeps parameter schemas self-contained (no $ref), so error messages can read their bounds', () => {
    const params = collectSchemaUses().filter((use) => use.where.includes(' parameter '));
    expect(params.length).toBeGreaterThan(15);
    for (const use of params) expect(JSON.stringify(at(use.schemaPointer)), use.where).not.toContain('$ref');
  });

  it('describes every run-time setting with the ranges of its option', () => {
    const settings = ((spec.components as Obj).schemas as Record<string, Obj>).Settings as Obj;
    const properties = settings.properties as Record<string, Obj>;
    expect(Object.keys(properties).sort()).toEqual([...SETTING_KEYS].sort());
    for (const key of SETTING_KEYS) {
      const kind = OPTION_SPECS.find((s) => s.key === key)?.kind;
      const schema = properties[key];
      if (kind?.type === 'integer')
        expect(schema, key).toMatchObject({ minimum: kind.min, maximum: kind.max });
      if (kind?.type === 'enum') expect(schema?.enum, key).toEqual([...kind.values]);
      if (kind?.type === 'boolean') expect(schema?.type, key).toBe('boolean');
    }
  });
});

describe('schemas compile with Ajv 2020 in strict mode', () => {
  const names = Object.keys(((spec.components as Obj).schemas as Obj) ?? {});

  it.each(names)('components/schemas/%s', (name) => {
    expect(() => schemaValidator(name)).not.toThrow();
  });

  it('every parameter and media type schema compiles, and every example validates', () => {
    const uses = collectSchemaUses();
    expect(uses.length).toBeGreaterThan(40);
    let examples = 0;
    for (const use of uses) {
      const check = validatorFor(use.schemaPointer);
      for (const example of use.examples) {
        examples++;
        expect(
          check(example.value),
          `${use.where} example ${example.name}: ${ajv.errorsText(check.errors)}`,
        ).toBe(true);
      }
    }
    expect(examples).toBeGreaterThan(25);
  });

  it('schema-level examples validate against their schema', () => {
    for (const [name, schema] of Object.entries((spec.components as Obj).schemas as Record<string, Obj>)) {
      for (const example of (schema.examples as unknown[]) ?? []) expectValid(name, example);
    }
  });
});

describe('schemas say what the contract says', () => {
  it('accepts the documentation samples', () => {
    expectValid('DocumentDetail', SINGLE_DOCUMENT_SAMPLE);
    expectValid('DetailEntry', REFERENCE_ENTRY);
    expectValid('TokenResult', {
      success: true,
      access_token: 'a',
      refresh_token: 'r',
      expiry_time: 1735693200,
    });
    expectValid('PatchResult', { success: 'true' });
    expectValid('PatchResult', { success: true });
    expectValid('PutResult', { success: true });
  });

  it.each([
    ['DocumentDetail', { ...SINGLE_DOCUMENT_SAMPLE, templateUid: 'TPL-101' }],
    ['DocumentDetail', { ...SINGLE_DOCUMENT_SAMPLE, details: { count: 3 } }],
    ['DocumentDetail', { ...SINGLE_DOCUMENT_SAMPLE, extra: 1 }],
    ['TokenResult', { success: true, access_token: 'a', refresh_token: 'r', expiry_time: '1735693200' }],
    ['PatchResult', { success: false }],
    ['PatchResult', { success: 'false' }],
    ['PutResult', { success: 'true' }],
    ['TokenRequest', { scope: 'docs api', content: 'x' }],
    ['TokenRequest', { scope: 'docs_api' }],
    ['DetailsInput', { name: 5 }],
    ['DetailsInput', { name: { name: 5, description: '', value: { type: 'string', text: 'x' } } }],
    // Meant as the documented form (it has name or description): whole, as the fake requires.
    ['DetailsInput', { name: { name: 'Name', description: '' } }],
    ['DetailsInput', { name: { name: 'Name', description: '', value: {} } }],
    ['DetailsInput', { name: { name: 'Name', description: '', value: { type: 'string' } } }],
    ['DetailsInput', { name: { description: '', value: { type: 'string', text: 'x' } } }],
    ['BatchBody', []],
    ['BatchBody', { templateUid: 'tpl-1' }],
    ['BatchBody', { templateUid: 'tpl-0', title: 'x' }],
    ['BatchBody', { templateUid: 'template-1', title: 'x' }],
    ['BatchBody', { templateUid: 0, title: 'x' }],
    ['BatchBody', { templateUid: '7', title: 'x', id: 0 }],
    ['BatchBody', { templateUid: '7', title: 'x', id: 'abc' }],
    ['BatchBody', { templateUid: '7', title: 'x', id: '07' }],
    ['CreateBody', []],
    ['CreateBody', { title: 'x' }],
    ['BatchBody', [{ templateUid: '7', title: 'x' }, { title: 'y' }]],
    ['Error', { success: false, message: 'm', code: 0, status: 400 }],
    ['Error', { success: true, message: 'm', code: 0, status: 400, apiRequestUid: 'u' }],
    ['DocumentSummary', { id: 1 }],
    ['Settings', { tokenTtlSeconds: 0 }],
    ['Settings', { unknownOption: true }],
    ['SettingsState', { tokenTtlSeconds: 60 }],
    ['ClockUpdate', { advanceSeconds: 1, now: 2 }],
    ['ClockUpdate', { now: -1 }],
    ['FaultInput', { status: 99 }],
    ['FaultInput', { delayMs: 600_001 }],
    ['FaultInput', { statusCode: 500 }],
  ])('%s rejects %j', (name, value) => {
    expectInvalid(name, value);
  });

  it.each([
    ['BatchBody', { templateUid: 'TPL-5001', id: 101101, title: 'Dundee Office' }],
    ['BatchBody', [{ templateUid: 5001, id: '', title: 'New' }]],
    ['BatchBody', [{ templateUid: 'tpl-5001', id: null, title: 'New', clientId: 1011, customId: 'C-1' }]],
    ['BatchBody', { templateUid: '5001', title: 'New', description: 'd', details: {} }],
    // Fields the documentation leaves "not shown" are ignored (with a notice), not rejected.
    ['BatchBody', { templateUid: '7', title: 'x', label: 'y' }],
    ['BatchBody', { templateUid: '7', title: 'x', id: '101101' }],
    // Details as a read returns them: null, plain strings, arrays, reference objects.
    [
      'DetailsInput',
      { city: null, country: 'Scotland', tags: [], vendor: { attribute: [{ type: 'vendors', id: 7 }] } },
    ],
    ['CreateBody', [{ templateUid: 'TPL-5001', clientId: 41001, title: 'Perth Office' }]],
    ['TokenRequest', { scope: 'docs-api', content: '' }],
    ['Error', { success: 'false', message: 'm', code: 1006, status: 401, apiRequestUid: 'u' }],
    [
      'Error',
      {
        success: false,
        message: 'm',
        code: 0,
        status: 400,
        apiRequestUid: 'u',
        errors: [{ location: 'body', message: 'x' }],
      },
    ],
    ['ClockUpdate', { advanceSeconds: -60 }],
    ['Settings', {}],
    ['FaultInput', { body: null, drop: true, times: 2 }],
  ])('%s accepts %j', (name, value) => {
    expectValid(name, value);
  });

  it('accepts the three templateUid spellings and rejects others', () => {
    const templateUid = validatorFor('/components/parameters/templateUid/schema');
    for (const ok of ['tpl-7', 'TPL-7', 'Tpl-7', '7', '5001']) expect(templateUid(ok), ok).toBe(true);
    for (const bad of ['tpl-', 'tpl-07', '0', 'tpl_7', ' 7', 'tpl-7x'])
      expect(templateUid(bad), bad).toBe(false);
    const documentId = validatorFor('/components/parameters/documentId/schema');
    for (const ok of ['1', '101101']) expect(documentId(ok), ok).toBe(true);
    for (const bad of ['0', '-1', '01', 'abc', '1.5', '12345678901234567'])
      expect(documentId(bad), bad).toBe(false);
  });
});

describe('response examples pass the response validator (prism-http)', () => {
  it('every response example validates against its operation and status', async () => {
    const operations = await getHttpOperationsFromSpec(structuredClone(spec) as never);
    const responses = collectSchemaUses().filter((use) => use.status !== undefined);
    let checked = 0;
    for (const use of responses) {
      const resource = operations.find((o) => o.method === use.method && o.path === use.path);
      expect(resource, use.where).toBeDefined();
      if (!resource) continue;
      for (const example of use.examples) {
        const body = example.value as Obj;
        const statusCode = use.status === 'default' ? Number(body.status) : Number(use.status);
        const result = validateOutput({
          resource,
          element: { statusCode, headers: { 'content-type': 'application/json' }, body },
        });
        const problems = result._tag === 'Left' ? result.left.map((d) => d.message) : [];
        expect(problems, `${use.where} example ${example.name}`).toEqual([]);
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(20);
  });
});
