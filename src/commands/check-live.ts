import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, EnvHttpProxyAgent } from 'undici';
import { ConfigError } from '../config.js';
import { FixtureError } from '../domain/fixtures/fixture-error.js';
import { createMockServer, type MockServer } from '../index.js';
import { ApiTarget } from '../live/api-target.js';
import { runProbes } from '../live/compare.js';
import { configFragment, type Ledger, ledgerMarkdown, regionOf } from '../live/ledger.js';
import { PACKAGE_VERSION } from '../package-root.js';
import {
  credentialsFromEnv,
  liveCommand,
  liveTarget,
  parseLive,
  progress,
  userFakeOptions,
} from './live-run.js';

/**
 * `passportal-docs-fake check-live --base URL --out DIR`: runs the probe catalogue against the
 * live service and against a fake started here with the user's settings, and writes ledger.md,
 * ledger.json and passportal-fake.config.json into DIR. Exit status: 0 when every probe ran, 1
 * when the run stopped (refused key, 429, network error, request bound; the ledger is still
 * written), 2 for bad usage.
 */
export async function checkLive(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const command = liveCommand(
    'check-live',
    'Probe the live service read-only and report each decision of the fake confirmed, contradicted or unknown.',
    300,
    1800,
  )
    .option(
      '--allow-writes <documentId>',
      'allow the one write probe, on this document (restored and verified)',
    )
    .option('--config <file>', 'the fake settings to compare (default: as the fake itself reads them)');
  const parsed = parseLive(command, argv);
  if ('exit' in parsed) return parsed.exit;
  const opts = parsed.opts;
  const credentials = credentialsFromEnv(env);
  if (credentials === undefined) return 2;
  let writable: number | undefined;
  if (opts.allowWrites !== undefined) {
    writable = Number(opts.allowWrites);
    if (!Number.isInteger(writable) || writable <= 0) {
      process.stderr.write(
        'error: --allow-writes takes the id of one document to write to (a positive integer)\n',
      );
      return 2;
    }
  }
  let mock: MockServer;
  try {
    mock = await createMockServer(userFakeOptions(opts.config as string | undefined, env));
  } catch (error) {
    if (error instanceof ConfigError || error instanceof FixtureError) {
      process.stderr.write(`error: ${error.message}\n`);
      return 2;
    }
    throw error;
  }
  const shown = progress();
  const dispatcher = new EnvHttpProxyAgent();
  const loopback = new Agent();
  try {
    const fakeUrl = await mock.listen(0, '127.0.0.1');
    const snapshot = mock.root.fake.snapshot();
    const fakeKey = snapshot.apiKeys[0];
    if (fakeKey === undefined) {
      process.stderr.write('error: the fake’s fixture set has no API key to probe it with\n');
      return 2;
    }
    const live = liveTarget(opts, credentials, dispatcher, shown);
    const fake = new ApiTarget({ base: fakeUrl, credentials: fakeKey, dispatcher: loopback, rate: 0 });
    const fakeDocument = snapshot.documents.find((d) => d.organization_id === fakeKey.organizationId)?.id;
    const { results, stopped } = await runProbes(live, fake, {
      writableDocumentId: writable,
      fakeWritableDocumentId: writable === undefined ? undefined : fakeDocument,
      onProbe: (probe) => shown.doing(`probing ${probe.id}`),
    });
    shown.done();
    // A tenant's words (error messages) are kept, with nothing secret either service echoed.
    const scrubber = live.scrubber;
    const scrub = <T>(value: T): T => fake.scrubber.value(scrubber.value(value)) as T;
    const scrubbedStop = stopped === undefined ? undefined : scrub(stopped.message);
    const ledger: Ledger = {
      tool: 'passportal-docs-fake check-live',
      date: new Date().toISOString(),
      host: live.host,
      region: regionOf(new URL(live.base).hostname),
      fakeVersion: PACKAGE_VERSION,
      readOnly: writable === undefined,
      requests: { live: live.requests, fake: fake.requests },
      complete: stopped === undefined,
      ...(scrubbedStop === undefined ? {} : { stoppedBy: scrubbedStop }),
      probes: results.map((r) => ({ ...r, live: scrub(r.live), fake: scrub(r.fake) })),
      ...(live.rateLimits.sightings() ? { rateLimits: live.rateLimits.sightings() } : {}),
    };
    const out = String(opts.out);
    mkdirSync(out, { recursive: true });
    writeFileSync(join(out, 'ledger.json'), `${JSON.stringify(ledger, null, 2)}\n`);
    writeFileSync(join(out, 'ledger.md'), ledgerMarkdown(ledger));
    writeFileSync(
      join(out, 'passportal-fake.config.json'),
      `${JSON.stringify(configFragment(ledger), null, 2)}\n`,
    );
    const count = (o: string) => results.filter((r) => r.outcome === o).length;
    process.stdout.write(
      `${ledger.host}: ${count('confirmed')} confirmed, ${count('contradicted')} contradicted, ` +
        `${count('unknown')} could not tell, in ${live.requests} requests; wrote ${join(out, 'ledger.md')}\n`,
    );
    if (scrubbedStop !== undefined) {
      process.stderr.write(`error: ${scrubbedStop}\n`);
      return 1;
    }
    return 0;
  } finally {
    shown.done();
    await Promise.all([mock.close(), dispatcher.close(), loopback.close()]);
  }
}
