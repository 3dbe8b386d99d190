import { execFile, spawn } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInterceptingProxy } from '../support/intercepting-proxy.js';
import { startLoopbackRegistry } from '../support/loopback-registry.js';

/**
 * `npm run release:artifacts` (scripts/release-artifacts.mjs) builds every release artifact once,
 * into a scratch folder, with the container engine the suite runs on; then each artifact is
 * installed as its user would, in a fresh place each, by the commands the README and the language
 * pages print (read from the pages, between `<!-- release-install:NAME -->` markers, and run as
 * written; the registry commands against the artifacts with the registry's own offline switch):
 * the npm tarball into a scratch project (no install script announced), and by name from a loopback
 * registry serving that tarball and the locked dependencies from npm's cache, the wheel into a fresh venv
 * with --no-index and a one-test pytest suite through the plugin, the .nupkg through PSResourceGet
 * from the release folder as a local repository in real pwsh and a one-test Pester suite importing
 * the module by name, and the image archive loaded into the engine and run in the foreground on
 * port 4010 as printed, answering its health check, stopped by Ctrl-C and removed.
 * The checksums are checked with `sha256sum -c`; every SBOM validates against CycloneDX 1.6's JSON schema.
 */

const run = promisify(execFile);
// Ajv and ajv-formats are CommonJS (CycloneDX 1.6's schema is draft-07: Ajv's default class).
const require = createRequire(import.meta.url);
const Ajv = require('ajv') as typeof import('ajv').default;
const addFormats = require('ajv-formats') as typeof import('ajv-formats').default;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
// PowerShell as scripts/ci-powershell.sh installs it (a .NET tool), else the one on PATH.
const PWSH =
  process.env.PWSH ??
  (existsSync(join(homedir(), '.dotnet/tools/pwsh')) ? join(homedir(), '.dotnet/tools/pwsh') : 'pwsh');
const PYTHON = '/usr/bin/python3';
// Pester as NuGet serves it (the test's stand-in for www.nuget.org serves these bytes to the
// download docs/powershell.md prints), from NuGet's cache, where
// `bash scripts/ci-powershell.sh --install-only` (.ci/run, before this suite) restores it.
const PESTER_NUPKG = join(
  process.env.NUGET_PACKAGES ?? join(homedir(), '.nuget/packages'),
  'pester/5.7.1/pester.5.7.1.nupkg',
);
const IMAGE = `passportal-docs-fake:${VERSION}`;
const DEFAULT_DOCUMENTS = (
  JSON.parse(readFileSync(join(ROOT, 'fixtures/default/documents.json'), 'utf8')) as unknown[]
).length;

const EXPECTED = [
  `passportal-docs-fake-${VERSION}.tgz`,
  `passportal_docs_fake-${VERSION}-py3-none-any.whl`,
  // The sdist under its normalized name (PEP 625), whichever setuptools built it.
  `passportal_docs_fake-${VERSION}.tar.gz`,
  `PassportalFake.${VERSION}.nupkg`,
  `passportal-docs-fake-${VERSION}.oci.tar`,
];

/** An artifact's SBOM, named by its kind: the release folder is a PSResourceGet repository,
 * which reads every file named after the module as a version of it (and fails on any other). */
function sbomOf(file: string): string {
  const kind = file.endsWith('.tgz')
    ? 'npm-package'
    : file.endsWith('.whl')
      ? 'python-wheel'
      : file.endsWith('.tar.gz')
        ? 'python-sdist'
        : file.endsWith('.nupkg')
          ? 'powershell-module'
          : 'image';
  return `sbom-${kind}-${VERSION}.cdx.json`;
}

let scratch: string;
let release: string;
let project: string;

interface Ran {
  status: number;
  output: string;
}

/** Runs a command to its end; `env` adds to this process's environment, or with `only` replaces it. */
async function sh(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
  only = false,
): Promise<Ran> {
  try {
    const { stdout, stderr } = await run(command, args, {
      cwd,
      env: only ? env : { ...process.env, ...env },
      maxBuffer: 64 * 1024 * 1024,
      timeout: 600_000,
    });
    return { status: 0, output: stdout + stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string; message: string };
    return {
      status: typeof e.code === 'number' ? e.code : 1,
      output: `${e.stdout ?? ''}${e.stderr ?? e.message}`,
    };
  }
}

/** Fails, naming the port, when something on this machine already listens on it. */
function portFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          `port ${port} is taken on this machine (${error.code}): the page's \`docker run\` publishes ` +
            `${port}, so this test needs it free; stop what listens on ${port} and run the suite again`,
        ),
      ),
    );
    // Every address, as the engine publishes it.
    server.listen(port, () => server.close(() => resolve()));
  });
}

/** The code block that follows `<!-- release-install:NAME -->` in a page, as the page prints it. */
function block(page: string, name: string): string {
  const text = readFileSync(join(ROOT, page), 'utf8');
  const match = new RegExp(`<!-- release-install:${name} -->\\n\`\`\`[a-z]*\\n([\\s\\S]*?)\`\`\``).exec(text);
  if (!match?.[1]) throw new Error(`${page} has no code block after <!-- release-install:${name} -->`);
  return match[1];
}

/** PowerShell with a home of its own: nothing registered or installed is shared. The XDG folders
 * are the home's defaults: PSResourceGet installs under ~/.local/share whatever XDG_DATA_HOME
 * says, and PowerShell looks for modules under XDG_DATA_HOME. */
function pwshEnv(home: string): NodeJS.ProcessEnv {
  return {
    HOME: home,
    XDG_DATA_HOME: join(home, '.local/share'),
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    POWERSHELL_TELEMETRY_OPTOUT: '1',
    POWERSHELL_UPDATECHECK: 'Off',
  };
}

/** The page's lines of a block, without comments, as a shell or pwsh runs them. */
function commands(page: string, name: string): string[] {
  return block(page, name)
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'release-artifacts-test-'));
  release = join(scratch, 'artifacts');
  const built = await sh('node', ['scripts/release-artifacts.mjs', '--image', '--out', release], ROOT);
  if (built.status !== 0) throw new Error(`npm run release:artifacts failed:\n${built.output}`);
  // The user's project: the release's files in ./release, as the pages assume.
  project = join(scratch, 'project');
  mkdirSync(join(project, 'release'), { recursive: true });
  for (const file of readdirSync(release)) copyFileSync(join(release, file), join(project, 'release', file));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
}, 1_800_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
}, 120_000);

describe('npm run release:artifacts', () => {
  it('builds every artifact, each with a CycloneDX SBOM, and SHA256SUMS, into one folder', () => {
    const files = readdirSync(release).sort();
    expect(files).toEqual(
      [...EXPECTED, ...EXPECTED.map(sbomOf), 'SHA256SUMS'].sort((a, b) => (a < b ? -1 : 1)),
    );
    // Only the module's own package is named after it.
    expect(files.filter((f) => /passportalfake/i.test(f))).toEqual([`PassportalFake.${VERSION}.nupkg`]);
  });

  it('SHA256SUMS verifies every other file (sha256sum -c, as the pages print it)', async () => {
    const lines = commands('docs/install.md', 'npm');
    const check = lines.find((l) => l.includes('sha256sum'));
    expect(check).toBe('(cd release && sha256sum -c --ignore-missing SHA256SUMS)');
    const result = await sh('bash', ['-c', check ?? ''], project);
    expect(result.status).toBe(0);
    for (const file of readdirSync(release).filter((f) => f !== 'SHA256SUMS')) {
      expect(result.output).toContain(`${file}: OK`);
    }
    // A changed byte is caught.
    const copy = join(scratch, 'tampered');
    mkdirSync(copy);
    for (const file of readdirSync(release)) copyFileSync(join(release, file), join(copy, file));
    writeFileSync(join(copy, `PassportalFake.${VERSION}.nupkg`), 'not the module');
    const tampered = await sh('sha256sum', ['-c', '--quiet', 'SHA256SUMS'], copy);
    expect(tampered.status).not.toBe(0);
    expect(tampered.output).toContain(`PassportalFake.${VERSION}.nupkg: FAILED`);
  });

  it("every SBOM validates against CycloneDX 1.6's JSON schema and describes its artifact", () => {
    const schemas = join(ROOT, 'node_modules/@cyclonedx/cyclonedx-library/res/schema');
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    // Internationalised forms ajv-formats lacks: any string (their ASCII forms are checked).
    ajv.addFormat('iri-reference', true);
    ajv.addFormat('idn-email', true);
    // The BOM schema refers to its two companions by their file names, next to its own $id.
    for (const name of ['spdx.SNAPSHOT.schema.json', 'jsf-0.82.SNAPSHOT.schema.json']) {
      const schema = JSON.parse(readFileSync(join(schemas, name), 'utf8')) as Record<string, unknown>;
      ajv.addSchema({ ...schema, $id: `http://cyclonedx.org/schema/${name}` });
    }
    const validate = ajv.compile(
      JSON.parse(readFileSync(join(schemas, 'bom-1.6.SNAPSHOT.schema.json'), 'utf8')),
    );
    const sums = new Map(
      readFileSync(join(release, 'SHA256SUMS'), 'utf8')
        .trim()
        .split('\n')
        .map((line) => [line.slice(66), line.slice(0, 64)] as const),
    );
    for (const file of EXPECTED) {
      const bom = JSON.parse(readFileSync(join(release, sbomOf(file)), 'utf8')) as {
        bomFormat: string;
        specVersion: string;
        metadata: {
          component: { name: string; version: string; hashes?: Array<{ alg: string; content: string }> };
        };
        components?: Array<{ name: string }>;
      };
      const valid = validate(bom);
      expect(validate.errors ?? [], file).toEqual([]);
      expect(valid).toBe(true);
      expect(bom.bomFormat).toBe('CycloneDX');
      expect(bom.specVersion).toBe('1.6');
      expect(bom.metadata.component.version).toBe(VERSION);
      expect(bom.metadata.component.hashes).toContainEqual({ alg: 'SHA-256', content: sums.get(file) });
    }
    // The npm package and the image list the package's runtime dependencies.
    for (const file of EXPECTED.filter((f) => f.endsWith('.tgz') || f.endsWith('.oci.tar'))) {
      const bom = JSON.parse(readFileSync(join(release, sbomOf(file)), 'utf8')) as {
        components: Array<{ name: string }>;
      };
      expect(bom.components.map((c) => c.name)).toEqual(expect.arrayContaining(['express', 'ajv', 'pino']));
      expect(bom.components.map((c) => c.name)).not.toContain('vitest');
    }
  });

  it('the npm tarball installs into a fresh project as docs/install.md prints it, announcing no install script', async () => {
    const lines = commands('docs/install.md', 'npm');
    const install = lines.find((l) => l.startsWith('npm install'));
    expect(install).toBe('npm install --save-dev ./release/passportal-docs-fake-*.tgz');
    // Offline: the dependencies come from npm's cache, as on any machine that installed them once.
    const result = await sh('bash', ['-c', `${install} --offline --no-audit --no-fund`], project);
    expect(result.status, result.output).toBe(0);
    // npm (11.x: `npm warn install-scripts`) names every installed package with an install-time
    // script (preinstall, install, postinstall, prepare) no one has allowed: neither the fake nor
    // any of its dependencies has one, so npm says nothing of scripts.
    const warnings = result.output.split('\n').filter((line) => /warn/i.test(line) && /script/i.test(line));
    expect(warnings).toEqual([]);
    const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { hasInstallScript?: boolean }>;
    };
    const withScripts = Object.entries(lock.packages).filter(([, entry]) => entry.hasInstallScript === true);
    expect(withScripts.map(([path]) => path)).toEqual([]);
    const installed = JSON.parse(
      readFileSync(join(project, 'node_modules/passportal-docs-fake/package.json'), 'utf8'),
    ) as { version: string; scripts?: Record<string, string> };
    expect(installed.version).toBe(VERSION);
    for (const hook of ['preinstall', 'install', 'postinstall', 'prepare']) {
      expect(installed.scripts ?? {}).not.toHaveProperty(hook);
    }
    const consumer = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    expect(consumer.devDependencies['passportal-docs-fake']).toMatch(/^file:release\/passportal-docs-fake-/);
    const bin = await sh(join(project, 'node_modules/.bin/passportal-docs-fake'), ['--version'], project);
    expect(bin).toEqual({ status: 0, output: `${VERSION}\n` });
  });

  it('`npm install --save-dev passportal-docs-fake` runs as docs/install.md prints it, against a loopback registry serving the release tarball', async () => {
    const install = commands('docs/install.md', 'registry')[0];
    expect(install).toBe('npm install --save-dev passportal-docs-fake');
    // npm has no switch that resolves a name from a file: a registry on 127.0.0.1 serves the
    // release's tarball by name and every locked dependency from npm's cache; every other host is
    // a proxy that refuses (test/support/loopback-registry.ts).
    const npmCache = (await sh('npm', ['config', 'get', 'cache'], ROOT)).output.trim();
    const registry = await startLoopbackRegistry({
      tarball: join(release, `passportal-docs-fake-${VERSION}.tgz`),
      lockFile: join(ROOT, 'package-lock.json'),
      npmCache,
    });
    const user = join(scratch, 'registry-user');
    mkdirSync(user);
    writeFileSync(join(user, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
    const env = registry.npmEnv(join(scratch, 'registry-npm'));
    try {
      const result = await sh('bash', ['-c', install ?? ''], user, env, true);
      if (registry.missing.length > 0) {
        throw new Error(
          `npm's cache (${npmCache}) does not hold ${registry.missing.length} of the locked packages npm asked ` +
            `for (${registry.missing.slice(0, 20).join(', ')}${registry.missing.length > 20 ? ', …' : ''}), which the registry ` +
            'serves from it: run `npm ci` in this checkout (it fills the cache), then run the suite again',
        );
      }
      expect(registry.escapes).toEqual([]);
      expect(result.status, result.output).toBe(0);
      expect(registry.requests).toContain(`GET /passportal-docs-fake/-/passportal-docs-fake-${VERSION}.tgz`);
      const warnings = result.output.split('\n').filter((line) => /warn/i.test(line) && /script/i.test(line));
      expect(warnings).toEqual([]);
      const consumer = JSON.parse(readFileSync(join(user, 'package.json'), 'utf8')) as {
        devDependencies: Record<string, string>;
      };
      expect(consumer.devDependencies).toEqual({ 'passportal-docs-fake': `^${VERSION}` });
      const bin = await sh('npx', ['passportal-docs-fake', '--version'], user, env, true);
      expect(bin).toEqual({ status: 0, output: `${VERSION}\n` });
      expect(registry.escapes).toEqual([]);
    } finally {
      await registry.close();
    }
  }, 300_000);

  it('the wheel installs into a fresh venv with --no-index and its plugin runs a pytest suite against the installed fake', async () => {
    const lines = commands('docs/python.md', 'artifacts');
    expect(lines).toEqual([
      'python3 -m venv --system-site-packages .venv',
      '.venv/bin/pip install --no-index ./release/passportal_docs_fake-*.whl',
    ]);
    for (const line of lines) {
      // Debian's python3 (the one that sees Debian's python3-pytest), first on PATH.
      const result = await sh('bash', ['-c', line], project, { PATH: `/usr/bin:${process.env.PATH}` });
      expect(result.status, `${line}\n${result.output}`).toBe(0);
    }
    mkdirSync(join(project, 'tests'));
    writeFileSync(
      join(project, 'tests/test_health.py'),
      [
        'import json',
        'import urllib.request',
        '',
        '',
        'def test_the_installed_fake_answers(passportal_fake, passportal_session):',
        '    with urllib.request.urlopen(passportal_fake.url + "/__admin/health") as answer:',
        '        assert json.load(answer)["status"] == "ok"',
        '',
      ].join('\n'),
    );
    // The launcher finds the npm package installed in ./node_modules (the previous test).
    const env = {
      PASSPORTAL_FAKE_URL: '',
      PASSPORTAL_FAKE_IMAGE: '',
      PASSPORTAL_FAKE_COMMAND: '',
      PASSPORTAL_FAKE_CHECKOUT: '',
    };
    const result = await sh(
      join(project, '.venv/bin/python'),
      ['-m', 'pytest', '-p', 'no:cacheprovider', 'tests'],
      project,
      env,
    );
    expect(result.output).toMatch(/1 passed/);
    expect(result.status).toBe(0);
    // The registry's command, offline against the release folder (pip's own switches).
    const registry = commands('docs/python.md', 'registry');
    expect(registry).toEqual(['pip install passportal-docs-fake']);
    // docs/install.md prints the same (beside npm's by name, run against a loopback registry above).
    expect(commands('docs/install.md', 'registry')).toEqual([
      'npm install --save-dev passportal-docs-fake',
      ...registry,
    ]);
    const fresh = await sh(PYTHON, ['-m', 'venv', join(scratch, 'venv-registry')], project);
    expect(fresh.status).toBe(0);
    const fromIndex = await sh('bash', ['-c', `${registry[0]} --no-index --find-links ./release`], project, {
      PATH: `${join(scratch, 'venv-registry/bin')}:${process.env.PATH}`,
    });
    expect(fromIndex.status, fromIndex.output).toBe(0);
    expect(fromIndex.output).toContain(`Successfully installed passportal-docs-fake-${VERSION}`);
  }, 300_000);

  it('the .nupkg installs through PSResourceGet from the release folder and a Pester suite imports it by name', async () => {
    // A home as a user's is: with ~/.local/share (PSResourceGet keeps its repository list in a
    // PSResourceGet folder of the working directory when that folder is missing).
    const home = join(scratch, 'pwsh-home');
    mkdirSync(join(home, '.local/share'), { recursive: true });
    const install = commands('docs/powershell.md', 'artifacts');
    expect(install).toEqual([
      'Register-PSResourceRepository -Name PassportalFakeRelease -Uri (Resolve-Path ./release).Path -Trusted',
      'Install-PSResource PassportalFake -Repository PassportalFakeRelease',
      'Import-Module PassportalFake',
    ]);
    const pester = commands('docs/powershell.md', 'pester');
    expect(pester).toEqual([
      'Invoke-WebRequest https://www.nuget.org/api/v2/package/Pester/5.7.1 -OutFile pester.zip',
      'Expand-Archive pester.zip -DestinationPath .pester',
      'Import-Module ./.pester/tools/Pester.psd1',
    ]);
    // Every line runs as printed. The download goes through a loopback proxy standing in for
    // www.nuget.org (pwsh's Invoke-WebRequest takes HTTPS_PROXY, and trusts only SSL_CERT_FILE's
    // CA, made for this test), which serves the file NuGet keeps in its cache: nothing reaches a
    // real host, and the proxy refuses (and records) any other host or path.
    const nupkg = readFileSync(PESTER_NUPKG);
    const nuget = await startInterceptingProxy({
      host: 'www.nuget.org',
      files: { '/api/v2/package/Pester/5.7.1': nupkg },
      tlsDir: join(scratch, 'nuget-proxy-tls'),
    });
    writeFileSync(
      join(project, 'Health.Tests.ps1'),
      [
        'BeforeAll {',
        '    Import-Module PassportalFake',
        '    $fake = Start-PassportalFake -UseNode',
        '}',
        'AfterAll { Stop-PassportalFake $fake }',
        "Describe 'the installed module' {",
        "    It 'starts the installed fake, which answers' {",
        '        (Invoke-RestMethod "$($fake.AdminUrl)/health").status | Should -Be \'ok\'',
        '        (Get-Module PassportalFake).ModuleBase | Should -BeLike "$HOME/*"',
        '    }',
        '}',
      ].join('\n'),
    );
    const script = [
      "$ErrorActionPreference = 'Stop'",
      'Unregister-PSResourceRepository -Name PSGallery -ErrorAction SilentlyContinue', // the registry, offline
      ...install,
      ...pester,
      '$result = Invoke-Pester -Path ./Health.Tests.ps1 -PassThru -Output Detailed',
      '"passed=$($result.PassedCount) failed=$($result.FailedCount) version=$((Get-Module PassportalFake).Version)"',
      'exit $result.FailedCount',
    ].join('\n');
    let result: Ran;
    try {
      result = await sh(PWSH, ['-NoProfile', '-NonInteractive', '-Command', script], project, {
        ...pwshEnv(home),
        HTTPS_PROXY: nuget.url,
        https_proxy: nuget.url,
        SSL_CERT_FILE: nuget.caFile,
        NO_PROXY: '',
        no_proxy: '',
      });
    } finally {
      await nuget.close();
    }
    expect(nuget.refused).toEqual([]);
    expect(nuget.served).toEqual(['GET https://www.nuget.org/api/v2/package/Pester/5.7.1']);
    expect(readFileSync(join(project, 'pester.zip')).equals(nupkg)).toBe(true);
    expect(result.output).toContain(`passed=1 failed=0 version=${VERSION}`);
    expect(result.status).toBe(0);
    // The registry's command, against the same local repository (the Gallery unregistered), made
    // untrusted as the Gallery is by default: the printed command installs with no prompt, which a
    // non-interactive session (a CI job) could not answer.
    const registry = commands('docs/powershell.md', 'registry');
    expect(registry).toEqual(['Install-PSResource PassportalFake -TrustRepository']);
    expect(commands('docs/install.md', 'registry-powershell')).toEqual(registry);
    const again = await sh(
      PWSH,
      [
        '-NoProfile',
        '-NonInteractive',
        '-Command',
        `$ErrorActionPreference = 'Stop'; Set-PSResourceRepository -Name PassportalFakeRelease -Trusted:$false; Uninstall-PSResource PassportalFake; ${registry[0]}; (Get-InstalledPSResource PassportalFake).Version.ToString()`,
      ],
      project,
      pwshEnv(home),
    );
    expect(again.output.trim().split('\n').at(-1)).toBe(VERSION);
    expect(again.status).toBe(0);
  }, 300_000);

  it('the image archive loads and runs as docs/install.md prints them: in the foreground on port 4010 with the default fixtures, stopped by Ctrl-C and removed', async () => {
    const lines = commands('docs/install.md', 'image');
    expect(lines).toEqual([
      'docker load -i ./release/passportal-docs-fake-*.oci.tar',
      `docker run --rm -p 4010:4010 ${IMAGE}`,
    ]);
    const loaded = await sh('bash', ['-c', lines[0] ?? ''], project);
    expect(loaded.status, loaded.output).toBe(0);
    expect(loaded.output).toContain(IMAGE);
    // The command as a user types it: the docker client in the foreground, holding the terminal.
    await portFree(4010);
    const containers = async () =>
      (await sh('docker', ['ps', '-a', '-q', '--no-trunc'], project)).output
        .split('\n')
        .filter((l) => l !== '');
    const before = await containers();
    const [docker = '', ...args] = (lines[1] ?? '').split(' ');
    const client = spawn(docker, args, { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    client.stdout.on('data', (d: Buffer) => {
      output += d.toString();
    });
    client.stderr.on('data', (d: Buffer) => {
      output += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => client.on('close', (code) => resolve(code)));
    try {
      let health: { status?: string; documents?: number } = {};
      for (let i = 0; i < 120 && health.status !== 'ok' && client.exitCode === null; i++) {
        health = await fetch('http://127.0.0.1:4010/__admin/health')
          .then((r) => r.json() as Promise<typeof health>)
          .catch(() => ({}));
        if (health.status !== 'ok') await new Promise((r) => setTimeout(r, 500));
      }
      expect(health.status, output).toBe('ok');
      // The image's own fixture set: every document of fixtures/default.
      expect(health.documents).toBe(DEFAULT_DOCUMENTS);
      // The container the command made: the one that was not there before it.
      const now = (await containers()).filter((c) => !before.includes(c));
      expect(now).toHaveLength(1);
      const id = now[0] ?? '';
      // Ctrl-C: SIGINT to the client, which passes it on; the fake closes and the client ends with
      // the container's status, 0.
      client.kill('SIGINT');
      const code = await Promise.race([
        exited,
        new Promise<string>((r) => setTimeout(() => r('still running'), 30_000)),
      ]);
      expect(code, output).toBe(0);
      // --rm: the container is gone (the engine may take a moment after the client returns).
      let left = await containers();
      for (let i = 0; i < 40 && left.includes(id); i++) {
        await new Promise((r) => setTimeout(r, 250));
        left = await containers();
      }
      expect(left).not.toContain(id);
    } finally {
      if (client.exitCode === null) client.kill('SIGKILL');
      // Whatever the command left behind when a check above failed.
      const extra = (await containers()).filter((c) => !before.includes(c));
      if (extra.length > 0) await sh('docker', ['rm', '-f', ...extra], project);
    }
  }, 300_000);
});
