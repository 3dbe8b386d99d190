import { type FSWatcher, statSync, watch } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from 'pino';
import { FixtureError } from '../domain/fixtures/fixture-error.js';
import { type LoadOptions, loadFixtureSource } from '../domain/fixtures/load-fixtures.js';
import type { Instance } from './instance.js';
import { keepBody } from './kept-body.js';

/**
 * `--watch`: the root's fixture set reloaded when its file or folder changes, as `PUT
 * /__admin/fixtures` would load it (state, tokens, clock, journal, faults back to the new set).
 * Node's own `fs.watch` is enough here (one file or one flat folder; no globbing): a file is
 * watched through its folder, so an editor that saves by replacing the file is still seen.
 * Changes are gathered for `DEBOUNCE_MS` after the last one, so a save that writes in pieces
 * loads once. A set that does not load (bad JSON, a schema or reference problem) keeps the one
 * in place; the log names the file and the path within it. Each reload, good or not, leaves a
 * marker entry in the journal (`RELOAD /__admin/fixtures`, 200 or 400), which the inspector shows.
 */

/** Quiet time after the last change before the set is read again. */
export const DEBOUNCE_MS = 250;

export interface FixtureWatcher {
  close(): void;
}

export function watchFixtures(
  source: string,
  instance: Instance,
  logger: Logger,
  loadOptions: LoadOptions = {},
): FixtureWatcher {
  const isFolder = statSync(source).isDirectory();
  const folder = isFolder ? source : dirname(source);
  const name = basename(source);
  let timer: NodeJS.Timeout | undefined;
  let loading: Promise<void> | undefined;
  let again = false;

  const reload = async (): Promise<void> => {
    const started = performance.now();
    try {
      const { dataset } = await loadFixtureSource(source, loadOptions);
      instance.load(dataset);
      logger.info({ fixtures: source, documents: dataset.documents.length }, 'fixtures reloaded');
      mark(instance, 200, { reloaded: true, documents: dataset.documents.length, fixtures: source }, started);
    } catch (error) {
      const problems = error instanceof FixtureError ? error.problems : undefined;
      const message = error instanceof Error ? error.message : String(error);
      logger.error(
        { fixtures: source, problems },
        `fixtures not reloaded, the set in place is kept: ${message}`,
      );
      mark(
        instance,
        400,
        {
          reloaded: false,
          message: 'fixtures not reloaded, the set in place is kept',
          problems: problems ?? [{ file: source, path: '', message }],
        },
        started,
      );
    }
  };

  const run = () => {
    timer = undefined;
    if (loading) {
      again = true;
      return;
    }
    loading = reload().finally(() => {
      loading = undefined;
      if (again) {
        again = false;
        schedule();
      }
    });
  };
  const schedule = () => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(run, DEBOUNCE_MS);
    timer.unref();
  };

  const watcher: FSWatcher = watch(folder, { persistent: false }, (_event, changed) => {
    if (isFolder || changed === null || changed === name) schedule();
  });
  watcher.on('error', (error) =>
    logger.error({ err: error, fixtures: source }, 'fixtures no longer watched'),
  );
  logger.info({ fixtures: source }, 'watching the fixtures for changes');
  return {
    close() {
      if (timer) clearTimeout(timer);
      watcher.close();
    },
  };
}

/** The journal's marker of a reload, as a request to the admin API would be journaled. */
function mark(instance: Instance, status: number, answer: object, started: number): void {
  const { journal } = instance;
  const text = JSON.stringify(answer);
  journal.record({
    arrivedAt: Date.now(),
    scheme: 'http',
    host: undefined,
    via: 'direct',
    method: 'RELOAD',
    path: '/__admin/fixtures',
    search: '',
    headers: {},
    body: undefined,
    status,
    durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    response: keepBody(text, 'json', journal.limits.bodyBytes),
    operationId: undefined,
    fault: undefined,
    outcome: 'completed',
    violations: [],
    notices: [],
    behaviours: [],
  });
}
