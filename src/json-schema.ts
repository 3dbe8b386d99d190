/**
 * What the spec's request validators (`contract/request-validator.ts`) and the fixture validator
 * (`domain/fixtures/validate-fixtures.ts`) both need before Ajv compiles a schema: Ajv itself,
 * loaded only when a validator is compiled in this process (with the build's precompiled
 * validators a server starts without it), and references inlined.
 */
import { createRequire } from 'node:module';

// Ajv and ajv-formats are CommonJS: `require` keeps them out of the start-up import graph.
const require = createRequire(import.meta.url);
type AjvModule = typeof import('ajv/dist/2020.js');
type AddFormats = typeof import('ajv-formats').default;
type StandaloneCode = typeof import('ajv/dist/standalone/index.js').default;

/** Ajv for JSON Schema 2020-12 (with its code template tag `_`), loaded on first use. */
export const loadAjv = (): AjvModule => require('ajv/dist/2020.js') as AjvModule;

/** ajv-formats, loaded on first use. */
export const loadAddFormats = (): AddFormats => require('ajv-formats') as AddFormats;

/** Ajv's standalone code generator (the build's precompiled validators), loaded on first use. */
export const loadStandaloneCode = (): StandaloneCode =>
  require('ajv/dist/standalone/index.js') as StandaloneCode;

/**
 * `schema` with the `$ref`s that `resolve` answers replaced by the schemas they point at (a
 * schema that refers back to itself keeps its reference; a `$ref` beside other keywords becomes
 * `allOf: [target]` beside them; `$defs` are kept as they are). With `allErrors`, a validator
 * that calls a referenced one appends its errors by concatenating the whole list so far, so many
 * bad items were checked in quadratic time (a batch of 40,000 `{}` items: 9 s; a fixture set of
 * 20,000 empty documents: 6 s); inlined, each error is pushed once and the check is linear.
 */
export function inlineRefs(schema: unknown, resolve: (ref: string) => unknown): unknown {
  const expand = (value: unknown, stack: readonly string[]): unknown => {
    if (Array.isArray(value)) return value.map((v) => expand(v, stack));
    if (value === null || typeof value !== 'object') return value;
    const node = value as Record<string, unknown>;
    const ref = node.$ref;
    const target = typeof ref === 'string' && !stack.includes(ref) ? resolve(ref) : undefined;
    if (typeof ref === 'string' && target !== undefined) {
      const { $ref: _ref, ...rest } = node;
      const inlined = expand(target, [...stack, ref]);
      return Object.keys(rest).length === 0
        ? inlined
        : { allOf: [inlined], ...(expand(rest, stack) as object) };
    }
    const out: Record<string, unknown> = {};
    for (const [key, inner] of Object.entries(node))
      out[key] = key === '$defs' ? inner : expand(inner, stack);
    return out;
  };
  return expand(schema, []);
}
