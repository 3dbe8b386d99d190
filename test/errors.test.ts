import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApiError, ERROR_KINDS, type ErrorKind, type ErrorKindName, renderError } from '../src/errors.js';
import { violationsOf } from '../src/harness/verdicts/violations-from-errors.js';

/**
 * The error catalogue and its one renderer (as fastify checks `lib/errors.js`): every kind renders
 * through `renderError` in the vendor's shape, whether a kind is a violation comes from the
 * catalogue, and no other source file writes the vendor's error shape by hand.
 * docs/errors.md is checked against the catalogue in test/readme.test.ts.
 */

const KINDS = Object.entries(ERROR_KINDS) as Array<[ErrorKindName, ErrorKind]>;

describe('renderError', () => {
  it.each(KINDS)(
    '%s renders in the vendor shape, with its status and code, under both success literals',
    (kind, def) => {
      for (const [success, literal] of [
        ['boolean', false],
        ['string', 'false'],
      ] as const) {
        const answer = renderError(new ApiError(kind), 'req-1', success);
        expect(answer.status).toBe(def.status);
        expect(JSON.parse(answer.text)).toEqual({
          success: literal,
          message: def.message,
          code: def.code,
          status: def.status,
          apiRequestUid: 'req-1',
        });
        expect(answer.bytes).toBe(Buffer.byteLength(answer.text));
      }
    },
  );

  it('lists `errors` when there are any (and counts their bytes in UTF-8)', () => {
    const errors = [{ location: 'query.searchTxt', message: 'is too long: “ü”' }];
    const answer = renderError(new ApiError('invalidBody', 'bad', errors), 'r');
    expect(JSON.parse(answer.text).errors).toEqual(errors);
    expect(answer.bytes).toBe(Buffer.byteLength(answer.text));
    expect(JSON.parse(renderError(new ApiError('invalidBody', 'bad', []), 'r').text)).not.toHaveProperty(
      'errors',
    );
  });

  it('renders a status outside the catalogue (an injected fault) the same way', () => {
    const answer = renderError(
      { message: 'Bad Gateway (injected fault)', code: 0, status: 502, errors: undefined },
      'r',
      'string',
    );
    expect(answer.status).toBe(502);
    expect(JSON.parse(answer.text)).toEqual({
      success: 'false',
      message: 'Bad Gateway (injected fault)',
      code: 0,
      status: 502,
      apiRequestUid: 'r',
    });
  });
});

describe('violations come from the catalogue', () => {
  it.each(KINDS)('%s', (kind, def) => {
    const bare = violationsOf(new ApiError(kind));
    if (def.violation === true) {
      expect(bare).toEqual([{ location: def.location ?? 'request', message: def.message }]);
    } else {
      expect(bare).toEqual([]);
    }
    const named = [{ location: 'header.x-access-token', message: 'is required' }];
    expect(violationsOf(new ApiError(kind, undefined, named))).toEqual(def.violation === false ? [] : named);
  });

  it('every 400 is a violation (a request the contract does not allow)', () => {
    for (const [kind, def] of KINDS) if (def.status === 400) expect(def.violation, kind).toBe(true);
  });
});

/** The server's source files (the inspector in src/ui renders no errors of its own). */
function sourceFiles(dir = new URL('../src', import.meta.url).pathname): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'ui' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('one renderer of error answers', () => {
  const root = new URL('..', import.meta.url).pathname;
  const files = sourceFiles().map((path) => ({
    path: relative(root, path),
    text: readFileSync(path, 'utf8'),
  }));

  it('no source file but src/errors.ts writes the vendor error shape itself', () => {
    // `success: false` / `"false"` in an object literal, or as JSON text.
    const shape = /success:\s*(?:false|'false'|"false"|success ===)|"success":\s*false/;
    const writers = files.filter((f) => shape.test(f.text)).map((f) => f.path);
    expect(writers).toEqual(['src/errors.ts']);
  });

  it('every path that answers an error renders it with renderError', () => {
    const answering = [
      'src/http/error-handler.ts',
      'src/http/fault-injector.ts',
      'src/http/client-error.ts',
      'src/http/forward-proxy.ts',
      'src/harness/persistence/hold-until-saved.ts',
    ];
    for (const path of answering) {
      const file = files.find((f) => f.path === path);
      expect(file?.text, path).toMatch(/renderError\(/);
    }
    // And nothing renders an ApiError's body any other way: the catalogue's renderer is the only export that does.
    const users = files.filter((f) => /\brenderError\(/.test(f.text)).map((f) => f.path);
    expect(users.sort()).toEqual([...answering, 'src/errors.ts'].sort());
  });
});
