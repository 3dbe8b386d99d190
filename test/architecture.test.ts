import { readdirSync } from 'node:fs';
import { cruise, type ICruiseResult, type IForbiddenRuleType } from 'dependency-cruiser';
import extractTSConfig from 'dependency-cruiser/config-utl/extract-ts-config';
import { describe, expect, it } from 'vitest';

/**
 * The layers of `src/`, each importing only the ones below it:
 *
 *   cli.ts, index.ts   entry points
 *   http/              the Express app: routers, middleware, handlers
 *   fleet/             a fleet's replicas: ownership in ids, hop markers, forwarding to the owner;
 *                      http/ and the entry points use it, it imports only what all share
 *   harness/           what a test tool keeps per instance, in rooms by concern (lowest first):
 *                      controls/, verdicts/, sessions/, instance/, tenants/, persistence/
 *   contract/          the spec: document, operations, validators, fallback mocker, handler types
 *   domain/            the fake itself: store, queries, writes, tokens, fixtures
 *   tls/               certificates: the local CA, server certificates, the TLS host names
 *   live/, commands/   check-live, capture, report and mcp: beside the server, which imports neither
 *   mcp/               the MCP server over the admin API: a client of it, which only the entry
 *                      points and commands/ import
 *   config.ts, options/, errors.ts, logger.ts, precompiled-validators.ts   shared by all
 *                      (options/ below config.ts: its readers take the declarations as an argument)
 *
 * `ui/` is the browser's code (the inspector, built into dist/ui): it imports nothing of the
 * server's but types (erased by the build: the shapes the admin API answers) and the typed admin
 * client (`client/admin-client.ts`, plain `fetch`, bundled in), and the server imports none of
 * it; the two meet only through the admin API. So the client stays fit for a browser: it imports
 * no Node module and nothing of the server's at run time but the violations check it throws.
 *
 * Only `http/` (and the entry points) may import Express; no module may import itself back
 * through others.
 */

/** The harness's rooms, lowest first. */
const HARNESS_ROOMS = ['controls', 'verdicts', 'sessions', 'instance', 'tenants', 'persistence'];

const rules: IForbiddenRuleType[] = [
  { name: 'no-cycle', severity: 'error', from: {}, to: { circular: true } },
  {
    name: 'domain-is-the-floor',
    severity: 'error',
    from: { path: '^src/domain/' },
    to: { path: '^src/(contract|harness|http)/|^src/(cli|index)\\.ts$' },
  },
  {
    name: 'contract-below-harness',
    severity: 'error',
    from: { path: '^src/contract/' },
    to: { path: '^src/(harness|http)/|^src/(cli|index)\\.ts$' },
  },
  {
    name: 'harness-below-http',
    severity: 'error',
    from: { path: '^src/harness/' },
    to: { path: '^src/http/|^src/(cli|index)\\.ts$' },
  },
  // The harness's rooms by concern, lowest first: each imports only rooms before it in this list
  // (a type may name any room: the compiler erases it). src/harness/README.md names them.
  ...HARNESS_ROOMS.slice(0, -1).map(
    (room, i): IForbiddenRuleType => ({
      name: `harness-${room}-below-${HARNESS_ROOMS.slice(i + 1).join('-')}`,
      severity: 'error',
      from: { path: `^src/harness/${room}/` },
      to: {
        path: `^src/harness/(${HARNESS_ROOMS.slice(i + 1).join('|')})/`,
        dependencyTypesNot: ['type-only'],
      },
    }),
  ),
  {
    name: 'tls-stands-low',
    severity: 'error',
    from: { path: '^src/tls/' },
    to: { path: '^src/(domain|contract|harness|http)/|^src/(cli|index)\\.ts$' },
  },
  {
    name: 'options-stand-low',
    severity: 'error',
    from: { path: '^src/(options/|config\\.ts$)' },
    to: { path: '^src/(domain|contract|harness|http|tls|ui)/|^src/(cli|index)\\.ts$' },
  },
  {
    // The readers take the option declarations as an argument (`OPTION_SET`): config.ts stands
    // above them, never the other way round.
    name: 'options-below-config',
    severity: 'error',
    from: { path: '^src/options/' },
    to: { path: '^src/config\\.ts$' },
  },
  {
    name: 'ui-stands-apart',
    severity: 'error',
    from: { path: '^src/ui/' },
    to: { path: '^src/', pathNot: '^src/(ui/|client/admin-client\\.ts$)', dependencyTypesNot: ['type-only'] },
  },
  {
    name: 'admin-client-fits-a-browser',
    severity: 'error',
    from: { path: '^src/client/admin-client\\.ts$|^src/harness/verdicts/no-violations\\.ts$' },
    to: {
      path: '^src/|(^|/)node_modules/',
      pathNot: '^src/harness/verdicts/no-violations\\.ts$',
      dependencyTypesNot: ['type-only'],
    },
  },
  {
    name: 'admin-client-uses-no-node-module',
    severity: 'error',
    from: { path: '^src/client/admin-client\\.ts$|^src/harness/verdicts/no-violations\\.ts$' },
    to: { dependencyTypes: ['core'] },
  },
  {
    name: 'live-tools-stand-apart',
    severity: 'error',
    from: { path: '^src/(domain|contract|harness|http|tls)/' },
    to: { path: '^src/(live|commands)/' },
  },
  {
    // The MCP server is a client of the admin API: the server hands it requests (index.ts composes
    // it, loaded only with --mcp-http), and nothing of the server imports it.
    name: 'mcp-stands-beside',
    severity: 'error',
    from: { path: '^src/(domain|contract|harness|http|tls|live|client)/' },
    to: { path: '^src/mcp/' },
  },
  {
    name: 'fleet-below-http',
    severity: 'error',
    from: { path: '^src/fleet/' },
    to: {
      path: '^src/(domain|contract|harness|http|tls|live|commands|mcp|client|ui)/|^src/(cli|index)\\.ts$',
    },
  },
  {
    name: 'fleet-above-the-instance',
    severity: 'error',
    from: { path: '^src/(domain|contract|harness|tls)/' },
    to: { path: '^src/fleet/' },
  },
  {
    name: 'server-never-imports-ui',
    severity: 'error',
    from: { path: '^src/', pathNot: '^src/ui/' },
    to: { path: '^src/ui/' },
  },
  {
    name: 'express-only-in-http',
    severity: 'error',
    from: { path: '^src/(domain|contract|harness|fleet)/' },
    to: { path: '(^|/)node_modules/(express|body-parser|cors)/' },
  },
];

/** Cruises `paths` with the project's tsconfig, so `./x.js` imports resolve to `./x.ts`. */
async function cruiseWith(paths: string[], forbidden: IForbiddenRuleType[]): Promise<ICruiseResult> {
  const result = await cruise(
    paths,
    {
      validate: true,
      ruleSet: { forbidden },
      tsPreCompilationDeps: true,
      tsConfig: { fileName: 'tsconfig.json' },
      exclude: { path: '\\.d\\.ts$' },
      doNotFollow: { path: 'node_modules' },
      // Packages that map their subpaths with `exports` (the MCP SDK's `./*`) resolve as Node resolves them.
      enhancedResolveOptions: {
        exportsFields: ['exports'],
        conditionNames: ['import', 'require', 'node', 'default'],
      },
    },
    {},
    { tsConfig: extractTSConfig('tsconfig.json') },
  );
  return result.output as ICruiseResult;
}

describe('the house: imports run one way', () => {
  it('has no import cycle and no import against the layers', async () => {
    const output = await cruiseWith(['src'], rules);
    expect(output.summary.totalCruised).toBeGreaterThan(40);
    // Imports were followed, not left unresolved (which would make every rule pass).
    const unresolved = output.modules.flatMap((m) =>
      m.dependencies.filter((d) => d.couldNotResolve).map((d) => `${m.source} -> ${d.module}`),
    );
    expect(unresolved).toEqual([]);
    const broken = output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`);
    expect(broken).toEqual([]);
  });

  it('places every room of src/harness/ in the layering, and no file outside a room', () => {
    const entries = readdirSync('src/harness', { withFileTypes: true }).filter((e) => e.name !== 'README.md');
    expect(entries.filter((e) => !e.isDirectory()).map((e) => e.name)).toEqual([]);
    expect(entries.map((e) => e.name).sort()).toEqual([...HARNESS_ROOMS].sort());
  });

  it('finds a cycle when there is one (the check is live)', async () => {
    const output = await cruiseWith(['test/fixtures/architecture'], [rules[0] as IForbiddenRuleType]);
    expect(output.summary.violations.map((v) => v.rule.name)).toContain('no-cycle');
  });
});
