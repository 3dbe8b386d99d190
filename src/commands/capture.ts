import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EnvHttpProxyAgent } from 'undici';
import { FixtureError } from '../domain/fixtures/fixture-error.js';
import { buildDataset } from '../domain/fixtures/load-fixtures.js';
import { LiveStop } from '../live/api-target.js';
import { crawl, Interrupted } from '../live/capture-crawl.js';
import { captureToFixtures } from '../live/capture-set.js';
import { credentialsFromEnv, liveCommand, liveTarget, parseLive, progress } from './live-run.js';

/**
 * `passportal-docs-fake capture --base URL --out DIR [--no-redact] [--resume]`: crawls the
 * key's organization read-only and writes a fixture set (a folder of organizations.json,
 * clients.json, templates.json, documents.json) into DIR. Redacted unless `--no-redact`.
 * Interrupted (Ctrl-C, a 429, a network error, the request bound), it keeps what it read in
 * DIR/capture-progress.jsonl and `--resume` goes on from there. Exit status: 0 done, 1 stopped
 * (resumable), 2 bad usage, 130 interrupted (resumable).
 */

export const PROGRESS_FILE = 'capture-progress.jsonl';

export async function capture(argv: string[], env: NodeJS.ProcessEnv): Promise<number> {
  const command = liveCommand(
    'capture',
    'Crawl one organization read-only into a redacted fixture set the fake loads.',
    100_000,
    // A day: an interrupted capture resumes.
    86_400,
  )
    .option('--no-redact', 'keep the texts as they are (labels, descriptions, detail texts, client names)')
    .option('--resume', `go on from ${PROGRESS_FILE} in --out after an interruption`);
  const parsed = parseLive(command, argv);
  if ('exit' in parsed) return parsed.exit;
  const opts = parsed.opts;
  const credentials = credentialsFromEnv(env);
  if (credentials === undefined) return 2;
  const out = String(opts.out);
  const progressPath = join(out, PROGRESS_FILE);
  const resume = opts.resume === true;
  if (!resume && existsSync(progressPath)) {
    process.stderr.write(
      `error: ${progressPath} holds an unfinished capture: run again with --resume to go on, or remove it to start afresh\n`,
    );
    return 2;
  }
  mkdirSync(out, { recursive: true });
  const shown = progress();
  const dispatcher = new EnvHttpProxyAgent();
  const api = liveTarget(opts, credentials, dispatcher, shown);
  const interrupt = new AbortController();
  const onSigint = () => interrupt.abort();
  process.once('SIGINT', onSigint);
  try {
    const crawled = await crawl(api, {
      progressPath,
      redact: opts.redact !== false,
      resume,
      signal: interrupt.signal,
      onStep: (what) => shown.doing(what),
    });
    shown.done();
    const { set, summary } = captureToFixtures(crawled);
    // The set must load as the fake loads it: a problem here is the capture's, named in full.
    buildDataset(set, join(out, 'documents.json'));
    for (const [key, rows] of Object.entries(set)) {
      writeFileSync(join(out, `${key}.json`), `${JSON.stringify(rows, null, 2)}\n`);
    }
    rmSync(progressPath, { force: true });
    process.stdout.write(
      `captured ${summary.documents} documents of ${set.clients.length} clients from ${api.host} in ${api.requests} requests` +
        `${opts.redact === false ? ' (not redacted)' : ' (redacted)'}; the fixture set is in ${out}\n` +
        (summary.unreadable > 0
          ? `${summary.unreadable} documents could not be read: their details are left out\n`
          : '') +
        (summary.otherTypes > 0
          ? `${summary.otherTypes} templates have a type the fake does not know: captured as custom\n`
          : ''),
    );
    return 0;
  } catch (error) {
    shown.done();
    if (error instanceof Interrupted) {
      process.stderr.write(`interrupted after ${api.requests} requests; run again with --resume to go on\n`);
      return 130;
    }
    if (error instanceof LiveStop) {
      process.stderr.write(`error: ${error.message}\n`);
      if (existsSync(progressPath))
        process.stderr.write('what was read is kept: run again with --resume to go on\n');
      return 1;
    }
    if (error instanceof FixtureError) {
      process.stderr.write(`error: the captured set does not load: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    process.off('SIGINT', onSigint);
    await dispatcher.close();
  }
}
