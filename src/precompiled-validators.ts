/**
 * Validators precompiled at build time (Ajv standalone code, CommonJS) and how they are found at
 * run time. The build writes one module per schema source into `dist/`, each headed by the SHA-256
 * of the source it was generated from; a module is used only when that key matches the source the
 * server is about to validate against, so an edited spec or schema never meets a stale validator
 * (the caller then compiles at start-up, as it does when no module exists, e.g. running from src/).
 */
import { createHash } from 'node:crypto';
import { closeSync, existsSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { packagePath } from './package-root.js';

const require = createRequire(import.meta.url);

/** The request validators of the default spec: `dist/request-validators.cjs` beside the compiled code. */
export const REQUEST_VALIDATORS_PATH = packagePath('dist/request-validators.cjs');
/** The fixture-set validator: `dist/fixture-validator.cjs`. */
export const FIXTURE_VALIDATOR_PATH = packagePath('dist/fixture-validator.cjs');

/** Bump when the shape of the generated modules or of what they are generated from changes. */
const FORMAT = 'precompiled-validators/1';
const HEADER = '// key: ';

/** A group of validators by export name (`<operationId> query`, `<operationId> application/json`, ...). */
export type ValidatorGroup = Readonly<Record<string, ValidateFunction | undefined>>;
/** A loaded module: its groups by name (`params`, `body`, `fixtureSet`). */
export type PrecompiledModule = Readonly<Record<string, ValidatorGroup | undefined>>;

/** The key of a source text (the spec document as JSON, the fixture schema file's text). */
export function sourceKey(text: string): string {
  return createHash('sha256').update(FORMAT).update('\n').update(text, 'utf8').digest('hex');
}

/**
 * A CommonJS module holding each group's standalone code in a scope of its own (the standalone
 * code of different Ajv instances reuses the same names), with the key on its first line.
 */
export function precompiledModuleSource(key: string, groups: Record<string, string>): string {
  let out = `${HEADER}${key}\n// Generated at build time by scripts/precompile-validators.mjs: Ajv standalone validators.\n'use strict';\n`;
  for (const [name, code] of Object.entries(groups)) {
    out += `exports[${JSON.stringify(name)}] = (function (exports) {\n${code}\nreturn exports;\n})({});\n`;
  }
  return out;
}

/** The key on a module's first line, read without evaluating the module. */
function keyOf(path: string): string | undefined {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(HEADER.length + 64);
    const read = readSync(fd, head, 0, head.length, 0);
    const text = head.toString('latin1', 0, read);
    return text.startsWith(HEADER) ? text.slice(HEADER.length) : undefined;
  } finally {
    closeSync(fd);
  }
}

/** Whether the module at `path` exists and was generated from the source with this key (not loaded). */
export function hasPrecompiled(path: string, key: string): boolean {
  return existsSync(path) && keyOf(path) === key;
}

/** The module at `path` if it exists and was generated from the source with this key. */
export function loadPrecompiled(path: string, key: string): PrecompiledModule | undefined {
  if (!existsSync(path) || keyOf(path) !== key) return undefined;
  return require(path) as PrecompiledModule;
}
