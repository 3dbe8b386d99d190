import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Every command the README and docs/ show for installing the fake, its helpers or Pester is one
 * that test/containers/release-artifacts.test.ts runs: the commands printed in the blocks marked
 * `<!-- release-install:NAME -->` (which that suite reads from the pages and runs as written, the
 * registry ones against the release's files: pip's and PSResourceGet's offline switches, and npm
 * against a loopback registry serving the release tarball and the locked dependencies from npm's
 * cache). A command printed anywhere else must be, word for word, one of those. The lines of
 * those blocks that no test can run as printed here (they need the network) are listed below
 * with the reason, and nothing else may join them unnoticed.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (page: string) => readFileSync(join(ROOT, page), 'utf8');
const PAGES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** The marked blocks test/containers/release-artifacts.test.ts reads and runs, by page. */
const RUN_BLOCKS: Record<string, string[]> = {
  'docs/install.md': ['registry', 'registry-powershell', 'npm', 'image'],
  'docs/powershell.md': ['registry', 'artifacts', 'pester'],
  'docs/python.md': ['registry', 'artifacts'],
};

/**
 * Lines of those blocks that no test runs as printed, and why: none now (Pester's download runs as
 * printed, through a loopback stand-in for www.nuget.org). A line added here must say why, and
 * every other printed line must be run.
 */
const NOT_RUN_AS_PRINTED: Record<string, string> = {};

/** A code block's lines as a shell or pwsh runs them: comments and blank lines dropped. */
function lines(code: string): string[] {
  return code
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

function block(page: string, name: string): string[] {
  const match = new RegExp(`<!-- release-install:${name} -->\\n\`\`\`[a-z]*\\n([\\s\\S]*?)\`\`\``).exec(
    read(page),
  );
  if (!match?.[1]) throw new Error(`${page} has no code block after <!-- release-install:${name} -->`);
  return lines(match[1]);
}

const INSTALL =
  /^(?:\S*\/)?(?:npm (?:install|i)|pip3? install|Install-PSResource|Install-Module|Register-PSResourceRepository|docker load|podman load|Invoke-WebRequest|Expand-Archive)\b/;
/** An install command of the fake, its helpers or Pester (not of other packages a page names). */
const isInstallCommand = (text: string) =>
  INSTALL.test(text) && /passportal|pester|\.\/release\b/i.test(text);

/** Every install command a page shows: in its code blocks, line by line, and in inline code. */
function installCommands(page: string): string[] {
  const text = read(page);
  const found: string[] = [];
  const prose = text.replace(/^```[^\n]*\n([\s\S]*?)^```/gm, (_all, code: string) => {
    // YAML steps: the command after `run:`.
    found.push(...lines(code).map((line) => line.replace(/^(?:-\s*)?run:\s*/, '')));
    return '';
  });
  for (const match of prose.matchAll(/`([^`\n]+)`/g))
    found.push((match[1] ?? '').replace(/\s+#.*$/, '').trim());
  return found.filter(isInstallCommand);
}

const printed = new Map<string, string[]>();
for (const [page, names] of Object.entries(RUN_BLOCKS)) {
  for (const name of names) printed.set(`${page} ${name}`, block(page, name));
}
const ran = new Set([...printed.values()].flat().filter((line) => !(line in NOT_RUN_AS_PRINTED)));

describe('install commands in the README and docs/', () => {
  it('each is one that test/containers/release-artifacts.test.ts runs as printed', () => {
    const untested = PAGES.flatMap((page) =>
      installCommands(page)
        .filter((command) => !ran.has(command) && !(command in NOT_RUN_AS_PRINTED))
        .map((command) => `${page}: ${command}`),
    );
    expect(untested).toEqual([]);
    // The pages do show them (the scan finds what it should).
    expect(installCommands('README.md')).toEqual(
      expect.arrayContaining([
        'pip install passportal-docs-fake',
        'Install-PSResource PassportalFake -TrustRepository',
      ]),
    );
  });

  it('the lines of the run blocks not run as printed are only the known ones, each still printed', () => {
    const all = new Set([...printed.values()].flat());
    expect(Object.keys(NOT_RUN_AS_PRINTED).filter((line) => !all.has(line))).toEqual([]);
    const notRun = [...all].filter((line) => !ran.has(line)).sort();
    expect(notRun).toEqual(Object.keys(NOT_RUN_AS_PRINTED).sort());
  });

  it("the PowerShell page's CI job installs the module and Pester with the commands of its Install section", () => {
    const ci = block('docs/powershell.md', 'ci').map((line) => line.replace(/^(?:-\s*)?run:\s*\|?\s*/, ''));
    const installing = ci.filter(isInstallCommand);
    const pester = printed.get('docs/powershell.md pester') ?? [];
    expect(installing).toEqual([
      ...(printed.get('docs/powershell.md registry') ?? []),
      ...pester.slice(0, 2),
    ]);
    // Pester is imported as the Install section imports it, before the suite runs.
    expect(ci.indexOf(pester[2] ?? '')).toBeGreaterThan(ci.indexOf(pester[1] ?? ''));
  });
});
