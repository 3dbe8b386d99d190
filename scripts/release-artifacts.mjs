#!/usr/bin/env node
// `npm run release:artifacts`: every release artifact, built offline into one folder
// (release/<version>/, or --out DIR), all at the one version package.json, the Python package's
// pyproject.toml and the PowerShell manifest share:
//
//   passportal-docs-fake-<v>.tgz                the npm package (npm pack of the built fake; its
//                                               package.json carries no lifecycle script, so
//                                               installing it runs and announces nothing)
//   passportal_docs_fake-<v>-py3-none-any.whl   the Python package (Debian's python3-build,
//   passportal_docs_fake-<v>.tar.gz             --no-isolation: no index is asked for setuptools;
//                                               the sdist under its PEP 625 name)
//   PassportalFake.<v>.nupkg                    the PowerShell module, published by PSResourceGet
//                                               (Publish-PSResource) to a local repository folder
//   passportal-docs-fake-<v>.oci.tar            the image passportal-docs-fake:<v> as an OCI archive
//                                               (only with a container engine; --image requires it)
//   sbom-<kind>-<v>.cdx.json                    a CycloneDX 1.6 SBOM for each artifact, <kind> one of
//                                               npm-package, python-wheel, python-sdist,
//                                               powershell-module, image (no name but the .nupkg's
//                                               holds the module's: the folder is a PSResourceGet
//                                               repository, which reads every PassportalFake.* file
//                                               as a version of the module and fails on any other)
//   SHA256SUMS                                  `sha256sum -c SHA256SUMS` checks every file above
//
// Needs Node and npm, Debian's python3 with python3-build (python3 -m build), PowerShell 7.4+
// (pwsh: on PATH, PWSH, or ~/.dotnet/tools/pwsh), and for the image `docker` (or podman) with an
// engine. Exit status: 0 done, 1 a step failed (its output is shown), 2 bad usage or a missing tool.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as CDX from '@cyclonedx/cyclonedx-library';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PY_DIR = join(ROOT, 'clients/python');
const PS_MODULE = join(ROOT, 'clients/powershell/PassportalFake');
const IMAGE_NAME = 'passportal-docs-fake';
const MODULE_NAME = 'PassportalFake';

/** The SBOM's file name for one kind of artifact; see the list above. */
const sbomName = (kind, version) => `sbom-${kind}-${version}.cdx.json`;

function usage(message) {
  if (message) console.error(`release-artifacts: ${message}`);
  console.error('usage: npm run release:artifacts -- [--out DIR] [--image | --no-image]');
  process.exit(2);
}

function say(message) {
  console.log(`release-artifacts: ${message}`);
}

/** Runs a command; on failure prints its output and exits 1. Returns stdout. */
function step(label, command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.error || result.status !== 0) {
    console.error(`release-artifacts: ${label} failed (${[command, ...args].join(' ')})`);
    if (result.error) console.error(String(result.error));
    process.stderr.write(result.stdout ?? '');
    process.stderr.write(result.stderr ?? '');
    process.exit(1);
  }
  return result.stdout;
}

function parseArgs(argv) {
  const options = { out: undefined, image: 'auto' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--out') {
      options.out = argv[++i];
      if (!options.out) usage('--out needs a folder');
    } else if (arg === '--image') options.image = 'required';
    else if (arg === '--no-image') options.image = 'off';
    else if (arg === '--help' || arg === '-h') usage();
    else usage(`unknown argument ${arg}`);
  }
  return options;
}

/** The one version: package.json, pyproject.toml and the module manifest must agree. */
function releaseVersion() {
  const npmVersion = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
  const pyVersion = /^version = "([^"]+)"$/m.exec(readFileSync(join(PY_DIR, 'pyproject.toml'), 'utf8'))?.[1];
  const psVersion = /ModuleVersion\s*=\s*'([^']+)'/.exec(
    readFileSync(join(PS_MODULE, 'PassportalFake.psd1'), 'utf8'),
  )?.[1];
  if (pyVersion !== npmVersion || psVersion !== npmVersion) {
    console.error(
      `release-artifacts: the versions differ: package.json ${npmVersion}, clients/python/pyproject.toml ${pyVersion}, ` +
        `clients/powershell/PassportalFake/PassportalFake.psd1 ${psVersion}; set all three to the release's version`,
    );
    process.exit(2);
  }
  return npmVersion;
}

function findPwsh() {
  const candidates = [process.env.PWSH, 'pwsh', join(homedir(), '.dotnet/tools/pwsh')].filter(Boolean);
  for (const candidate of candidates) {
    const probe = spawnSync(
      candidate,
      ['-NoProfile', '-NonInteractive', '-Command', '$PSVersionTable.PSVersion.Major'],
      {
        encoding: 'utf8',
      },
    );
    if (probe.status === 0 && Number(probe.stdout.trim()) >= 7) return candidate;
  }
  console.error('release-artifacts: PowerShell 7 (pwsh) was not found: put it on PATH or set PWSH');
  process.exit(2);
}

const sha256 = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');

// --- the npm package -------------------------------------------------------------------------

/** Lifecycle scripts npm (and other clients) run or announce when a package is installed. */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare', 'preprepare', 'postprepare'];

function buildNpm(out, scratch) {
  say('building the fake (npm run build)');
  step('npm run build', 'npm', ['run', 'build'], { cwd: ROOT });
  const first = join(scratch, 'npm-first');
  mkdirSync(first);
  step('npm pack', 'npm', ['pack', '--ignore-scripts', '--pack-destination', first], { cwd: ROOT });
  const packed = readdirSync(first).find((f) => f.endsWith('.tgz'));
  // The package as published: the same files, its package.json without the scripts that only
  // build this repository (`prepare` builds dist/ for a clone; an installed package has it).
  const unpacked = join(scratch, 'npm-unpacked');
  mkdirSync(unpacked);
  step('unpacking the tarball', 'tar', ['-xzf', join(first, packed), '-C', unpacked]);
  const dir = join(unpacked, 'package');
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  manifest.scripts = { start: manifest.scripts?.start ?? 'node dist/start.js' };
  for (const name of INSTALL_SCRIPTS) delete manifest.scripts[name];
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  step('npm pack (published form)', 'npm', ['pack', '--ignore-scripts', '--pack-destination', out], {
    cwd: dir,
  });
  const file = `passportal-docs-fake-${manifest.version}.tgz`;
  if (!existsSync(join(out, file))) usage(`npm pack did not write ${file}`);
  say(`npm package: ${file}`);
  return file;
}

function npmSbom(out, file, version) {
  // @cyclonedx/cyclonedx-npm reads the installed tree (npm ls): the production dependencies the
  // package declares, as package-lock.json resolves them.
  const bin = join(ROOT, 'node_modules/.bin/cyclonedx-npm');
  const target = join(out, sbomName('npm-package', version));
  step(
    'cyclonedx-npm',
    bin,
    [
      '--omit',
      'dev',
      '--spec-version',
      '1.6',
      '--output-reproducible',
      '--validate',
      '--output-format',
      'JSON',
      '--output-file',
      target,
      join(ROOT, 'package.json'),
    ],
    { cwd: ROOT },
  );
  // The artifact's own hash on its root component.
  const bom = JSON.parse(readFileSync(target, 'utf8'));
  bom.metadata.component.hashes = [{ alg: 'SHA-256', content: sha256(join(out, file)) }];
  writeFileSync(target, `${JSON.stringify(bom, null, 2)}\n`);
  return target;
}

// --- the Python package ----------------------------------------------------------------------

// The sdist under its normalized name (PEP 625: passportal_docs_fake-<v>.tar.gz, its folder named
// alike), as PyPI asks of uploads; setuptools before 69.3 (Debian 12's, Ubuntu 24.04's) keeps the
// project's dashes in both.
const SDIST_REPACK = `
import sys, tarfile
src, dst, old, new = sys.argv[1:]
with tarfile.open(src, "r:gz") as tin, tarfile.open(dst, "w:gz", format=tarfile.PAX_FORMAT) as tout:
    for member in tin.getmembers():
        data = tin.extractfile(member) if member.isfile() else None
        if member.name == old or member.name.startswith(old + "/"):
            member.name = new + member.name[len(old):]
        tout.addfile(member, data)
`;

function normalizeSdist(python, out, version) {
  const old = `passportal-docs-fake-${version}`;
  const normalized = `passportal_docs_fake-${version}`;
  if (!existsSync(join(out, `${old}.tar.gz`))) return;
  step('renaming the sdist', python, [
    '-c',
    SDIST_REPACK,
    join(out, `${old}.tar.gz`),
    join(out, `${normalized}.tar.gz`),
    old,
    normalized,
  ]);
  rmSync(join(out, `${old}.tar.gz`));
}

function buildPython(out, scratch, version) {
  // Built from a copy, so the checkout gains no build/ or egg-info folder.
  const copy = join(scratch, 'python');
  cpSync(PY_DIR, copy, {
    recursive: true,
    filter: (src) => !/(^|\/)(build|dist|__pycache__|\.pytest_cache|\.mypy_cache|[^/]*\.egg-info)$/.test(src),
  });
  say('building the Python wheel and sdist (python3 -m build --no-isolation)');
  const python = process.env.PYTHON ?? (existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3');
  step('python3 -m build', python, ['-m', 'build', '--no-isolation', '--outdir', out, '.'], { cwd: copy });
  normalizeSdist(python, out, version);
  const files = readdirSync(out).filter((f) => /^passportal[-_]docs[-_]fake-.*\.(whl|tar\.gz)$/.test(f));
  if (files.length !== 2) usage(`the Python build wrote ${files.join(', ') || 'nothing'}`);
  say(`Python package: ${files.join(', ')}`);
  return files.sort();
}

// --- the PowerShell module --------------------------------------------------------------------

function buildPowerShell(out, scratch, version) {
  const pwsh = findPwsh();
  const repo = join(scratch, 'psrepo');
  mkdirSync(repo);
  // PSResourceGet keeps its repository list under the user's home: a home of this run's own, so
  // nothing is registered or installed for the user.
  // ~/.local/share as in a user's home: without it PSResourceGet keeps the list in the working folder.
  const data = join(scratch, 'pshome');
  mkdirSync(join(data, '.local/share'), { recursive: true });
  say('publishing the PowerShell module to a local repository (Publish-PSResource)');
  const script = `
    $ErrorActionPreference = 'Stop'
    Import-Module Microsoft.PowerShell.PSResourceGet
    Register-PSResourceRepository -Name ReleaseArtifacts -Uri $env:RELEASE_REPO -Trusted
    Publish-PSResource -Path $env:RELEASE_MODULE -Repository ReleaseArtifacts
  `;
  step('Publish-PSResource', pwsh, ['-NoProfile', '-NonInteractive', '-Command', script], {
    cwd: scratch,
    env: {
      ...process.env,
      RELEASE_REPO: repo,
      RELEASE_MODULE: PS_MODULE,
      HOME: data,
      POWERSHELL_TELEMETRY_OPTOUT: '1',
      POWERSHELL_UPDATECHECK: 'Off',
    },
  });
  const file = `${MODULE_NAME}.${version}.nupkg`;
  if (!existsSync(join(repo, file)))
    usage(`Publish-PSResource did not write ${file} (found ${readdirSync(repo).join(', ')})`);
  cpSync(join(repo, file), join(out, file));
  say(`PowerShell module: ${file}`);
  return file;
}

// --- the image --------------------------------------------------------------------------------

function engineAnswers() {
  const probe = spawnSync('docker', ['version', '--format', '{{.Server.Version}}'], { encoding: 'utf8' });
  return probe.status === 0 && probe.stdout.trim() !== '';
}

function buildImage(out, version) {
  const ref = `${IMAGE_NAME}:${version}`;
  say(`building the image ${ref} (docker build)`);
  step('docker build', 'docker', ['build', '-q', '-t', ref, '.'], { cwd: ROOT });
  const file = `${IMAGE_NAME}-${version}.oci.tar`;
  const target = join(out, file);
  // Podman writes an OCI archive when asked; Docker Engine 25 and later write an OCI image layout
  // in `docker save` (which `docker load` and `podman load` both read).
  const podman = spawnSync('podman', ['image', 'exists', ref]).status === 0;
  if (podman) step('podman save', 'podman', ['save', '--format', 'oci-archive', '-o', target, ref]);
  else step('docker save', 'docker', ['save', '-o', target, ref]);
  const id = execFileSync('docker', ['image', 'inspect', '--format', '{{.Id}}', ref], {
    encoding: 'utf8',
  }).trim();
  say(`image: ${file} (${ref}, ${id})`);
  return { file, id: id.replace(/^sha256:/, '') };
}

// --- SBOMs made from the package metadata -------------------------------------------------------

function serialize(bom) {
  const serializer = new CDX.Serialize.JsonSerializer(
    new CDX.Serialize.JSON.Normalize.Factory(CDX.Spec.Spec1dot6),
  );
  return `${serializer.serialize(bom, { sortLists: true, space: 2 })}\n`;
}

function licenseMit() {
  return new CDX.Models.LicenseRepository([new CDX.Models.SpdxLicense('MIT')]);
}

/** A BOM whose subject is one artifact with no dependency of its own (standard library only). */
function packageBom({ type, name, version, purl, description, file, components = [] }) {
  const bom = new CDX.Models.Bom();
  bom.serialNumber = `urn:uuid:${randomUUID()}`;
  bom.metadata.timestamp = new Date();
  bom.metadata.tools.components.add(
    new CDX.Models.Component(CDX.Enums.ComponentType.Application, 'release-artifacts', {
      group: 'passportal-docs-fake',
      version: JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version,
    }),
  );
  const subject = new CDX.Models.Component(type, name, {
    version,
    description,
    bomRef: purl,
    purl,
    licenses: licenseMit(),
    hashes: new CDX.Models.HashDictionary([[CDX.Enums.HashAlgorithm['SHA-256'], sha256(file)]]),
  });
  bom.metadata.component = subject;
  for (const component of components) {
    bom.components.add(component);
    subject.dependencies.add(component.bomRef);
  }
  return bom;
}

/** A package URL (purl): type, name, version and qualifiers, each part percent-encoded. */
function purl(type, name, version, qualifiers) {
  const query = Object.entries(qualifiers ?? {})
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([key, value]) => `${key}=${encodeURIComponent(value)}`)
    .join('&');
  return `pkg:${type}/${encodeURIComponent(name)}@${encodeURIComponent(version)}${query ? `?${query}` : ''}`;
}

function pythonSbom(out, file, version) {
  const kind = file.endsWith('.whl') ? 'python-wheel' : 'python-sdist';
  const target = join(out, sbomName(kind, version));
  const bom = packageBom({
    type: CDX.Enums.ComponentType.Library,
    name: 'passportal-docs-fake',
    version,
    purl: purl(
      'pypi',
      'passportal-docs-fake',
      version,
      file.endsWith('.whl') ? { file_name: file } : undefined,
    ),
    description: 'The Python package of the Passportal Documents API fake (standard library only)',
    file: join(out, file),
  });
  writeFileSync(target, serialize(bom));
  return target;
}

function powershellSbom(out, file, version) {
  const target = join(out, sbomName('powershell-module', version));
  const bom = packageBom({
    type: CDX.Enums.ComponentType.Library,
    name: MODULE_NAME,
    version,
    purl: purl('nuget', MODULE_NAME, version, {
      repository_url: 'https://www.powershellgallery.com/api/v2',
    }),
    description: 'The PowerShell module of the Passportal Documents API fake (no required module)',
    file: join(out, file),
  });
  writeFileSync(target, serialize(bom));
  return target;
}

/** The image: the npm package it runs, with that package's dependencies, from the npm SBOM. */
function imageSbom(out, file, version, id, npmBomFile) {
  const npmBom = JSON.parse(readFileSync(npmBomFile, 'utf8'));
  const target = join(out, sbomName('image', version));
  // The package keeps the reference the npm SBOM gave it, so its dependency graph joins as it is.
  const pkg = new CDX.Models.Component(CDX.Enums.ComponentType.Application, 'passportal-docs-fake', {
    version,
    bomRef: npmBom.metadata.component['bom-ref'],
    purl: npmBom.metadata.component.purl ?? purl('npm', 'passportal-docs-fake', version),
    licenses: licenseMit(),
  });
  const bom = packageBom({
    type: CDX.Enums.ComponentType.Container,
    name: IMAGE_NAME,
    version,
    purl: purl('oci', IMAGE_NAME, `sha256:${id}`, { tag: version }),
    description: 'The Passportal Documents API fake as a container image',
    file: join(out, file),
    components: [pkg],
  });
  const json = JSON.parse(serialize(bom));
  json.components.push(...(npmBom.components ?? []));
  const fromNpm = new Map((npmBom.dependencies ?? []).map((d) => [d.ref, d]));
  json.dependencies = [...json.dependencies.filter((d) => !fromNpm.has(d.ref)), ...fromNpm.values()];
  writeFileSync(target, `${JSON.stringify(json, null, 2)}\n`);
  return target;
}

// --- main -------------------------------------------------------------------------------------

function main() {
  const options = parseArgs(process.argv.slice(2));
  const version = releaseVersion();
  const out = resolve(options.out ?? join(ROOT, 'release', version));
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const scratch = mkdtempSync(join(tmpdir(), 'release-artifacts-'));
  const withImage = options.image === 'off' ? false : options.image === 'required' ? true : engineAnswers();
  if (options.image === 'required' && !engineAnswers()) {
    console.error(
      'release-artifacts: --image: no container engine answers (`docker version`): start one or set DOCKER_HOST',
    );
    process.exit(2);
  }
  try {
    const sboms = [];
    const npmFile = buildNpm(out, scratch);
    const npmBom = npmSbom(out, npmFile, version);
    sboms.push(npmBom);
    for (const file of buildPython(out, scratch, version)) sboms.push(pythonSbom(out, file, version));
    sboms.push(powershellSbom(out, buildPowerShell(out, scratch, version), version));
    if (withImage) {
      const image = buildImage(out, version);
      sboms.push(imageSbom(out, image.file, version, image.id, npmBom));
    } else if (options.image === 'off') {
      say('no image: --no-image leaves it out');
    } else {
      say('==============================================================================');
      say('NO IMAGE: no container engine answers (`docker version`); the other artifacts are built.');
      say('Start an engine (Docker, Podman, Colima) or set DOCKER_HOST, then run again for the image.');
      say('==============================================================================');
    }
    const files = readdirSync(out)
      .filter((f) => f !== 'SHA256SUMS')
      .sort();
    // The folder must stay installable as a PSResourceGet repository: the .nupkg alone is named
    // after the module.
    const stray = files.filter(
      (f) => f.toLowerCase().includes(MODULE_NAME.toLowerCase()) && !f.endsWith('.nupkg'),
    );
    if (stray.length > 0) {
      console.error(
        `release-artifacts: ${stray.join(', ')} would break Install-PSResource from this folder: only the .nupkg may be named after ${MODULE_NAME}`,
      );
      process.exit(1);
    }
    writeFileSync(join(out, 'SHA256SUMS'), files.map((f) => `${sha256(join(out, f))}  ${f}\n`).join(''));
    say(`${files.length} files and SHA256SUMS in ${out}`);
    for (const f of files) console.log(`  ${f}`);
    return sboms.map((f) => basename(f));
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

main();
