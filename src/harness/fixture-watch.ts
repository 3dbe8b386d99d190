import { createHash } from 'node:crypto';
import { type FSWatcher, readdirSync, readFileSync, realpathSync, statSync, watch } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import type { Logger } from 'pino';
import { FixtureError } from '../domain/fixtures/fixture-error.js';
import { type LoadOptions, loadFixtureSource } from '../domain/fixtures/load-fixtures.js';
import type { Instance } from './instance.js';
import { keepBody } from './kept-body.js';

/**
 * `--watch`: the root's fixture set reloaded when a file it is read from changes its content, as
 * `PUT /__admin/fixtures` would load it (state, tokens, clock, journal, faults back to the new
 * set). The set is read from the file given, or from the `.json` files of the folder given; any
 * other file (an editor's swap file, `notes.txt`) is ignored, and so is an event that leaves
 * those files' contents as they were (SHA-256 of each, compared with the set loaded last).
 * Node's own `fs.watch` reports the events (a file is watched through its folder, so an editor
 * that saves by replacing the file is still seen); the path given is followed: every
 * `FOLLOW_MS` its real path and folder are looked up again, and a folder replaced or a symlink
 * swapped is watched anew (and read, when its contents differ). A path that can no longer be
 * watched (gone, unreadable) is logged once, as an error saying why; watching resumes if it
 * comes back. Changes are gathered for `DEBOUNCE_MS` after the last one, so a save that writes in
 * pieces loads once. A set that does not load (bad JSON, a schema or reference problem) keeps the
 * one in place; the log names the file and the path within it. Each reload, good or not, leaves a
 * marker entry in the journal (`RELOAD /__admin/fixtures`, 200 or 400), which the inspector shows.
 */

/** Quiet time after the last change before the set is read again. */
export const DEBOUNCE_MS = 250;
/** How often the path given is looked up again, to follow a replaced folder or a swapped link. */
export const FOLLOW_MS = 1000;

export interface FixtureWatcher {
  close(): void;
}

/** Where the set is read from now: the real folder watched, and the file names within it that count. */
interface Place {
  /** Real path and identity (device, inode) of the folder watched. */
  key: string;
  folder: string;
  /** The file's real name (a file source); undefined for a folder: its `.json` files. */
  file: string | undefined;
}

function placeOf(source: string, isFolder: boolean): Place {
  const real = realpathSync(source);
  const folder = isFolder ? real : dirname(real);
  const { dev, ino } = statSync(folder);
  return { key: `${real}\0${dev}:${ino}`, folder, file: isFolder ? undefined : basename(real) };
}

const counts = (place: Place, name: string): boolean =>
  place.file === undefined ? name.toLowerCase().endsWith('.json') : name === place.file;

/** The SHA-256 of each file the set is read from, by name, as one comparable text. */
function contentsOf(place: Place): string {
  const names =
    place.file === undefined
      ? readdirSync(place.folder, { withFileTypes: true })
          .filter((d) => !d.isDirectory() && counts(place, d.name))
          .map((d) => d.name)
          .sort()
      : [place.file];
  return names
    .map((name) => {
      let hash = 'unreadable';
      try {
        hash = createHash('sha256')
          .update(readFileSync(join(place.folder, name)))
          .digest('hex');
      } catch {}
      return `${name}:${hash}`;
    })
    .join('\n');
}

export function watchFixtures(
  source: string,
  instance: Instance,
  logger: Logger,
  loadOptions: LoadOptions = {},
): FixtureWatcher {
  const isFolder = statSync(source).isDirectory();
  let place: Place | undefined = placeOf(source, isFolder);
  /** What the files held when the set was last read (loaded or refused). */
  let lastContents = contentsOf(place);
  let watcher: FSWatcher | undefined;
  /** Why the path is not watched now, once logged; undefined while it is. */
  let stopped: string | undefined;
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

  /** Reads the set again when a file it is read from holds something else than last time. */
  const readIfChanged = async (): Promise<void> => {
    if (!place) return;
    let now: string;
    try {
      now = contentsOf(place);
    } catch {
      return; // The folder went away between two looks: the follower sees to it.
    }
    if (now === lastContents) return;
    lastContents = now;
    await reload();
  };

  const run = () => {
    timer = undefined;
    if (loading) {
      again = true;
      return;
    }
    loading = readIfChanged().finally(() => {
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

  const stop = (why: string) => {
    watcher?.close();
    watcher = undefined;
    place = undefined;
    if (stopped !== undefined) return;
    stopped = why;
    logger.error(
      { fixtures: source },
      `fixtures no longer watched: ${why}; the set in place is kept (watching resumes if the path comes back)`,
    );
  };

  const watchPlace = (at: Place) => {
    watcher?.close();
    const current = watch(at.folder, { persistent: false }, (_event, changed) => {
      if (changed === null || counts(at, String(changed))) schedule();
    });
    current.on('error', (error) => {
      if (watcher === current) stop(`watching ${at.folder} failed: ${error.message}`);
    });
    watcher = current;
    place = at;
  };

  /** Looks the path up again: a new folder or link target is watched anew, and read if changed. */
  const follow = () => {
    let now: Place;
    try {
      now = placeOf(source, isFolder);
    } catch (error) {
      stop(`${source} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
      return;
    }
    if (place?.key === now.key && watcher) return;
    try {
      watchPlace(now);
    } catch (error) {
      stop(`watching ${now.folder} failed: ${(error as Error).message}`);
      return;
    }
    if (stopped !== undefined) {
      logger.info({ fixtures: source }, 'fixtures watched again');
      stopped = undefined;
    }
    schedule();
  };

  watchPlace(place);
  const follower = setInterval(follow, FOLLOW_MS);
  follower.unref();
  logger.info({ fixtures: source }, 'watching the fixtures for changes');
  return {
    close() {
      if (timer) clearTimeout(timer);
      clearInterval(follower);
      watcher?.close();
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
