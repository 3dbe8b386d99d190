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

  it('the release builds every artifact with the one command, checks the tag is the version of all three packages, and attaches them all to the GitHub release', () => {
    const workflow = release();
    const artifacts = workflow.jobs.artifacts;
    expect(artifacts?.needs).toBe('check');
    const runs = artifacts?.steps.map((s) => s.run ?? '').join('\n') ?? '';
    expect(runs).toContain('npm run release:artifacts -- --image --out release-artifacts');
    expect(runs).toContain('sha256sum -c SHA256SUMS');
    for (const file of [
      'package.json',
      'clients/python/pyproject.toml',
      'clients/powershell/PassportalFake/PassportalFake.psd1',
    ]) {
      expect(runs).toContain(file);
    }
    expect(runs).toContain('GITHUB_REF_NAME');
    expect(artifacts?.steps.some((s) => s.uses?.startsWith('actions/upload-artifact@'))).toBe(true);
    // Every publishing job publishes those files, not a build of its own.
    for (const name of ['npm', 'image', 'pypi', 'powershell']) {
      expect(workflow.jobs[name]?.needs, name).toBe('artifacts');
    }
    for (const name of ['npm', 'pypi', 'powershell']) {
      expect(
        workflow.jobs[name]?.steps.some((s) => s.uses?.startsWith('actions/download-artifact@')),
        name,
      ).toBe(true);
    }
    const npmRuns = workflow.jobs.npm?.steps.map((s) => s.run ?? '').join('\n') ?? '';
    expect(npmRuns).toMatch(
      /^npm publish "release-artifacts\/passportal-docs-fake-\$\{GITHUB_REF_NAME#v\}\.tgz" --provenance/m,
    );
    expect(npmRuns).toContain('gh release create "$GITHUB_REF_NAME" release-artifacts/*');
    expect(workflow.jobs.npm?.permissions).toMatchObject({ 'id-token': 'write' });
  });

  it('the release signs the pushed image by digest with cosign, keyless', () => {
    const job = release().jobs.image;
    expect(job?.permissions).toMatchObject({ 'id-token': 'write', packages: 'write' });
    const uses = job?.steps.map((s) => s.uses?.split('@')[0]);
    expect(uses).toContain('sigstore/cosign-installer');
    const push = job?.steps.find((s) => s.uses?.startsWith('docker/build-push-action'));
    const sign = job?.steps.find((s) => s.run?.startsWith('cosign sign'));
    expect(sign?.run).toContain('--yes');
    expect(sign?.run).toMatch(/@\$\{DIGEST\}"$/);
    expect(sign?.env?.DIGEST).toBe(`\${{ steps.${push?.id}.outputs.digest }}`);
    // Keyless: no key or password is passed.
    expect(sign?.run).not.toMatch(/--key|COSIGN_PASSWORD/);
  });

  it('the release publishes the Python package to PyPI by trusted publishing, the wheel and sdist the artifacts job built', () => {
    const job = Object.values(release().jobs).find((j) =>
      j.steps.some((s) => s.uses?.startsWith('pypa/gh-action-pypi-publish@')),
    );
    expect(job).toBeDefined();
    expect(job?.permissions).toMatchObject({ 'id-token': 'write' });
    expect(job?.environment?.name).toBe('pypi');
    const publish = job?.steps.find((s) => s.uses?.startsWith('pypa/gh-action-pypi-publish@'));
    // Trusted publishing: no password or API token is passed.
    expect(Object.keys(publish?.with ?? {})).toEqual(['packages-dir']);
    const copy = job?.steps.find((s) => s.run?.includes('dist-python'));
    expect(copy?.run).toContain('release-artifacts/passportal_docs_fake-*.whl');
    expect(copy?.run).toContain('release-artifacts/passportal_docs_fake-*.tar.gz');
    // One tag releases all packages: their versions are the same.
    const pyproject = readFileSync(join(ROOT, 'clients/python/pyproject.toml'), 'utf8');
    const npmVersion = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string })
      .version;
    expect(pyproject.match(/^version = "([^"]+)"$/m)?.[1]).toBe(npmVersion);
  });

  it('the release publishes the built .nupkg to the PowerShell Gallery, its version the tag', () => {
    const job = release().jobs.powershell;
    const runs = job?.steps.map((s) => s.run ?? '').join('\n') ?? '';
    expect(runs).toContain("$env:GITHUB_REF_NAME.TrimStart('v')");
    expect(runs).toMatch(
      /Publish-PSResource -NupkgPath \$nupkg -Repository PSGallery -ApiKey \$env:PSGALLERY_API_KEY/,
    );
    const manifest = readFileSync(
      join(ROOT, 'clients/powershell/PassportalFake/PassportalFake.psd1'),
      'utf8',
    );
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(/ModuleVersion\s*=\s*'([^']+)'/.exec(manifest)?.[1]).toBe(pkg.version);
  });

  it('the CI workflow runs every stage of .ci/run', () => {
    const stages = readFileSync(join(ROOT, '.ci/run'), 'utf8')
      .split('\n')
      // `time npm test`: the stage, timed.
      .map((line) => line.trim().replace(/^time /, ''))
      .filter((line) => /^(npm (ci|test|run [\w:]+)|bash scripts\/[\w-]+\.sh)\b/.test(line));
    expect(stages).toEqual(
      expect.arrayContaining(['npm test', 'npm run test:containers', 'bash scripts/ci-python.sh']),
    );
    const ci = parse(readFileSync(join(ROOT, '.github/workflows/ci.yml'), 'utf8')) as Workflow;
    const runs = Object.values(ci.jobs).flatMap((job) => job.steps.map((s) => s.run?.trim() ?? ''));
    for (const stage of stages) {
      expect(
        runs.some((r) => r.startsWith(stage)),
        stage,
      ).toBe(true);
    }
  });
});

interface Workflow {
  jobs: Record<
    string,
    {
      needs?: string;
      permissions?: Record<string, string>;
      environment?: { name: string };
      steps: Array<{
        id?: string;
        uses?: string;
        run?: string;
        env?: Record<string, string>;
        with?: Record<string, unknown>;
      }>;
    }
  >;
}

function release(): Workflow {
  return parse(readFileSync(join(ROOT, '.github/workflows/release.yml'), 'utf8')) as Workflow;
}
