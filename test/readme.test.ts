import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPTION_SPECS } from '../src/config.js';
import { defaultApiKey } from '../src/domain/fixtures/default-keys.js';
import { createMockServer, type MockServer } from '../src/index.js';

/** The README is part of the product: its commands and tables must stay true. */

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const run = promisify(execFile);

describe('README', () => {
  let mock: MockServer;
  let base: string;
  beforeAll(async () => {
    mock = await createMockServer({ logLevel: 'silent' });
    base = await mock.listen(0, '127.0.0.1');
  });
  afterAll(() => mock.close());

  it('its first screen gives the start and test commands', () => {
    const firstScreen = readme.split('\n').slice(0, 25).join('\n');
    expect(firstScreen).toContain('npm start');
    expect(firstScreen).toContain('npm test');
    expect(firstScreen).toContain('`/docs`');
    expect(firstScreen).toContain('`/__admin/ui`');
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
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], {
      env: { ...process.env, BASE: base },
    });
    expect(stdout).toContain('"results":[');
    expect(stdout).toContain('"templateUid":"tpl-5001"');
    expect(stdout).toContain('{"success":"true"}');
    expect(stdout).toContain('"violations":[]');
    const state = mock.root.fake.snapshot();
    const perth = state.documents.find((d) => d.label === 'Perth Office');
    expect(perth?.details.city).toMatchObject({ value: { text: 'Perth' } });
    expect(state.documents.find((d) => d.id === 101101)?.label).toBe('Dundee HQ');
  });

  it('documents every option with its flag and environment variable', () => {
    for (const spec of OPTION_SPECS) {
      expect(readme, spec.flag).toContain(`\`${spec.flag}\``);
      expect(readme, spec.env).toContain(`\`${spec.env}\``);
    }
  });
});

describe('README error catalogue', () => {
  it('documents every error kind with its status, code and message', async () => {
    const { ERROR_KINDS } = await import('../src/errors.js');
    for (const [kind, def] of Object.entries(ERROR_KINDS)) {
      expect(readme, kind).toContain(`| \`${kind}\` | ${def.status} | ${def.code} | ${def.message} |`);
    }
  });
});
