import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/**
 * The GitHub Actions workflows (the release in .github/workflows, the example in examples/ci) pass
 * a workflow linter: action-validator (@action-validator/cli, from npm; it checks a workflow
 * against the schema GitHub's workflows follow, and its globs). Then what the release promises.
 */

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LINTER = join(ROOT, 'node_modules/.bin/action-validator');
const WORKFLOWS = [
  ...readdirSync(join(ROOT, '.github/workflows'))
    .filter((f) => /\.ya?ml$/.test(f))
    .map((f) => `.github/workflows/${f}`),
  'examples/ci/github-actions.yml',
];

async function lint(file: string): Promise<{ ok: boolean; output: string }> {
  try {
    const { stdout, stderr } = await run(LINTER, [file], { cwd: ROOT });
    return { ok: true, output: stdout + stderr };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe('workflows', () => {
  it.each(WORKFLOWS)('%s passes the workflow linter', async (file) => {
    const result = await lint(file);
    expect(result.output).toBe('');
    expect(result.ok).toBe(true);
  });

  it('the linter is live: it rejects a broken workflow', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'workflow-'));
    try {
      const file = join(dir, 'broken.yml');
      writeFileSync(file, 'name: broken\non: push\njobs:\n  a:\n    runs-on: ubuntu-latest\n    stepz: []\n');
      const result = await lint(file);
      expect(result.ok).toBe(false);
      expect(result.output).toContain("Additional property 'stepz' is not allowed");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the release publishes the npm package and a multi-architecture image on a version tag', () => {
    const text = readFileSync(join(ROOT, '.github/workflows/release.yml'), 'utf8');
    const workflow = parse(text) as {
      on: { push: { tags: string[] } };
      jobs: Record<string, { steps: Array<{ uses?: string; run?: string; with?: Record<string, unknown> }> }>;
    };
    expect(workflow.on.push.tags).toEqual(['v*.*.*']);
    const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
    const uses = steps.map((s) => s.uses?.split('@')[0]);
    for (const action of [
      'docker/setup-qemu-action',
      'docker/setup-buildx-action',
      'docker/login-action',
      'docker/build-push-action',
    ]) {
      expect(uses).toContain(action);
    }
    const push = steps.find((s) => s.uses?.startsWith('docker/build-push-action'));
    expect(push?.with).toMatchObject({ platforms: 'linux/amd64,linux/arm64', push: true });
    expect(text).toMatch(/images: ghcr\.io\/.+\/passportal-docs-fake$/m);
    expect(steps.some((s) => s.run?.startsWith('npm publish'))).toBe(true);
    expect(steps.some((s) => s.run?.includes('gh release create'))).toBe(true);
  });

  it("the release publishes the Python package to PyPI by trusted publishing, at the tag's version", () => {
    const workflow = parse(readFileSync(join(ROOT, '.github/workflows/release.yml'), 'utf8')) as {
      jobs: Record<
        string,
        {
          needs?: string;
          permissions?: Record<string, string>;
          environment?: { name: string };
          steps: Array<{ uses?: string; run?: string; with?: Record<string, unknown> }>;
        }
      >;
    };
    const job = Object.values(workflow.jobs).find((j) =>
      j.steps.some((s) => s.uses?.startsWith('pypa/gh-action-pypi-publish@')),
    );
    expect(job).toBeDefined();
    expect(job?.needs).toBe('check');
    expect(job?.permissions).toMatchObject({ 'id-token': 'write' });
    expect(job?.environment?.name).toBe('pypi');
    const publish = job?.steps.find((s) => s.uses?.startsWith('pypa/gh-action-pypi-publish@'));
    // Trusted publishing: no password or API token is passed.
    expect(Object.keys(publish?.with ?? {})).toEqual(['packages-dir']);
    const build = job?.steps.find((s) => s.run?.includes('python -m build'));
    expect(build?.run).toContain('clients/python');
    expect(
      job?.steps.some(
        (s) => s.run?.includes('clients/python/pyproject.toml') && s.run.includes('GITHUB_REF_NAME'),
      ),
    ).toBe(true);
    // One tag releases both packages: their versions are the same.
    const pyproject = readFileSync(join(ROOT, 'clients/python/pyproject.toml'), 'utf8');
    const npmVersion = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string })
      .version;
    expect(pyproject.match(/^version = "([^"]+)"$/m)?.[1]).toBe(npmVersion);
  });

  it('the release publishes the PowerShell module to the PowerShell Gallery, its version the tag', () => {
    const workflow = parse(readFileSync(join(ROOT, '.github/workflows/release.yml'), 'utf8')) as {
      jobs: Record<string, { needs?: string; steps: Array<{ run?: string; env?: Record<string, string> }> }>;
    };
    const job = workflow.jobs.powershell;
    expect(job?.needs).toBe('check');
    const runs = job?.steps.map((s) => s.run ?? '').join('\n') ?? '';
    expect(runs).toContain('Test-ModuleManifest ./clients/powershell/PassportalFake/PassportalFake.psd1');
    expect(runs).toContain('$env:GITHUB_REF_NAME');
    expect(runs).toMatch(
      /Publish-PSResource -Path \.\/clients\/powershell\/PassportalFake -Repository PSGallery/,
    );
    const manifest = readFileSync(
      join(ROOT, 'clients/powershell/PassportalFake/PassportalFake.psd1'),
      'utf8',
    );
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(/ModuleVersion\s*=\s*'([^']+)'/.exec(manifest)?.[1]).toBe(pkg.version);
  });
});
