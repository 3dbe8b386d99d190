import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPTION_SPECS } from '../src/config.js';
import { defaultApiKey } from '../src/domain/fixtures/default-keys.js';
import { createMockServer, type MockServer } from '../src/index.js';

/**
 * The README and the pages under docs/ are part of the product: their commands and tables must
 * stay true, the README must stay a short guide, and every link between them must lead somewhere.
 */

const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const readme = read('README.md');
const DOC_PAGES = readdirSync(new URL('../docs', import.meta.url)).filter((name) => name.endsWith('.md'));
const run = promisify(execFile);

/** A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
}

/** The anchors of a Markdown text's headings (outside code blocks). */
function anchorsOf(markdown: string): string[] {
  const outside = markdown.replace(/^```[\s\S]*?^```/gm, '');
  return [...outside.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1] ?? ''));
}

describe('README', () => {
  let mock: MockServer;
  let base: string;
  beforeAll(async () => {
    mock = await createMockServer({ logLevel: 'silent' });
    base = await mock.listen(0, '127.0.0.1');
  });
  afterAll(() => mock.close());

  it('its first screen gives the Node version, the start, test and Docker commands, and the pages', () => {
    const firstScreen = readme.split('\n').slice(0, 25).join('\n');
    expect(firstScreen).toContain('Node 20.19+ or 24');
    expect(firstScreen).toContain('npm ci && npm start');
    expect(firstScreen).toMatch(/npm test .*\d+ to \d+ minutes/);
    expect(firstScreen).toContain('docker build -t passportal-docs-fake .');
    expect(firstScreen).toContain('docker run --rm -p 4010:4010 passportal-docs-fake');
    expect(firstScreen).toContain('`/docs`');
    expect(firstScreen).toContain('`/__admin/ui`');
  });

  it('stays a short guide: at most 350 lines, linking every page under docs/', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(350);
    for (const page of DOC_PAGES) expect(readme, page).toContain(`](docs/${page})`);
  });

  it('every relative link of the README and of docs/ leads to a file, and to a heading there', () => {
    const pages = [['README.md', readme], ...DOC_PAGES.map((page) => [`docs/${page}`, read(`docs/${page}`)])];
    for (const [path = '', text = ''] of pages) {
      const folder = path.includes('/') ? 'docs/' : '';
      for (const [, target = ''] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target)) continue;
        const [file = '', anchor] = target.split('#');
        const resolved = file === '' ? path : new URL(file, `file:///${folder}`).pathname.slice(1);
        expect(existsSync(new URL(`../${resolved}`, import.meta.url)), `${path}: ${target}`).toBe(true);
        if (anchor && resolved.endsWith('.md')) {
          expect(anchorsOf(read(resolved)), `${path}: ${target}`).toContain(anchor);
        }
      }
    }
  });

  it('has a troubleshooting list for a port in use, 401 on the token call and 403 on admin', () => {
    const section = readme.split('## Troubleshooting')[1]?.split('\n## ')[0] ?? '';
    expect(section).toContain('EADDRINUSE');
    expect(section).toContain('401 on the token call');
    expect(section).toContain('403 `Forbidden` on `/__admin` from a browser page');
    expect(section).toContain('403 on `/__admin` from another container');
    expect(section).toContain('ADMIN_ORIGINS');
    expect(section).toContain('ADMIN_HOSTS');
  });

  it('shows screenshots that are in the repository', () => {
    const images = [...readme.matchAll(/!\[[^\]]*\]\(([^)]+\.png)\)/g)].map((m) => m[1] ?? '');
    expect(images).toEqual(['docs/images/inspector.png', 'docs/images/docs.png']);
    for (const image of images) expect(existsSync(new URL(`../${image}`, import.meta.url))).toBe(true);
  });

  it('prints the default keys that the default fixtures really use', () => {
    for (const organizationId of [1, 2]) {
      const key = defaultApiKey(organizationId);
      expect(readme).toContain(key.keyId);
      expect(readme).toContain(key.secret);
    }
  });

  it('its walkthrough runs against the default fixtures: token, list, read, patch, batch', async () => {
    const block = readme.split('<!-- walkthrough:start -->')[1]?.split('<!-- walkthrough:end -->')[0] ?? '';
    const script = block
      .trim()
      .replace(/^```sh\n/, '')
      .replace(/```\s*$/, '')
      .trim();
    expect(script.length).toBeGreaterThan(100);
    // -sS: quiet, but "connection refused" still shows when the fake is not running.
    expect(script).not.toMatch(/curl -s /);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], {
      env: { ...process.env, BASE: base },
    });
    expect(stdout).toContain('"results":[');
    expect(stdout).toContain('"templateUid":"tpl-5001"');
    expect(stdout).toContain('{"success":"true"}');
    expect(stdout).toContain('"violations":[]');
    // Each answer on a line of its own: seven answers, each one JSON document.
    const answers = stdout.trim().split('\n');
    expect(answers).toHaveLength(7);
    for (const answer of answers) expect(() => JSON.parse(answer), answer).not.toThrow();
    const state = mock.root.fake.snapshot();
    const perth = state.documents.find((d) => d.label === 'Perth Office');
    expect(perth?.details.city).toMatchObject({ value: { text: 'Perth' } });
    expect(state.documents.find((d) => d.id === 101101)?.label).toBe('Dundee HQ');
  });

  it('documents every option with its flag and environment variable (docs/options.md)', () => {
    const options = read('docs/options.md');
    for (const spec of OPTION_SPECS) {
      expect(options, spec.flag).toContain(`\`${spec.flag}\``);
      expect(options, spec.env).toContain(`\`${spec.env}\``);
    }
  });
});

describe('error catalogue (docs/errors.md)', () => {
  it('documents every error kind with its status, code, message and whether it is a violation, and no other', async () => {
    const { ERROR_KINDS } = await import('../src/errors.js');
    type ErrorKind = import('../src/errors.js').ErrorKind;
    const errors = read('docs/errors.md');
    const violation = (def: ErrorKind): string => {
      if (def.violation === 'named') return 'when `errors` names what was broken';
      if (!def.violation) return 'no';
      return def.location ? `yes, at \`${def.location}\`` : 'yes';
    };
    const documented = new Set<string>();
    for (const [kind, def] of Object.entries(ERROR_KINDS) as Array<[string, ErrorKind]>) {
      const row = errors.split('\n').find((line) => line.startsWith(`| \`${kind}\` |`));
      expect(row, kind).toBeDefined();
      expect(row, kind).toContain(`| \`${kind}\` | ${def.status} | ${def.code} | ${def.message} |`);
      expect(row?.endsWith(`| ${violation(def)} |`), `${kind}: violation column`).toBe(true);
      documented.add(kind);
    }
    // And every kind documented is one of the catalogue's.
    const rows = errors.match(/^\| `\w+` \|/gm) ?? [];
    expect(rows.map((r) => r.slice(3, -3)).sort()).toEqual([...documented].sort());
  });
});
