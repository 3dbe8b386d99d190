import { closeSync, fsyncSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { ConfigError, type Settings } from '../config.js';
import { buildDataset } from '../domain/fixtures/load-fixtures.js';
import type { TokenGrant } from '../domain/tokens.js';
import type { Dataset } from '../domain/types.js';
import type { ErrorBody } from '../errors.js';
import type { Instance } from './instance.js';
import { mergeSettings } from './settings-input.js';

/**
 * The root instance kept in a file (`stateFile`), for days-long use: documents, tokens, clock
 * offset, settings and the reset point survive a restart, even `kill -9`. The file is written
 * whole and atomically (a temporary file beside it, fsync, rename, fsync of the folder) after
 * every change made over HTTP and before the answer that acknowledges it is sent, so a change a
 * client saw acknowledged is never lost. Sessions, the journal and faults are not kept: they
 * belong to a test run.
 *
 * Writing costs one JSON text of the changed documents and tokens; the reset point's text is made
 * once per fixture load and reused.
 */

const FORMAT = 'passportal-docs-fake state';
const VERSION = 1;

interface StateFileBody {
  format: typeof FORMAT;
  version: typeof VERSION;
  savedAt: string;
  clockOffsetSeconds: number;
  settings: Settings;
  tokens: Array<[string, TokenGrant]>;
  /** Documents that differ from the reset point (edited or created), as `GET /__admin/state` shows them. */
  changed: unknown[];
  /** The fixture set a reset returns to. */
  resetPoint: Dataset;
}

export class StateFile {
  readonly path: string;
  #resetPointKey: object | undefined;
  #resetPointText = '';
  /** Writes so far and the time they took (for the log and the benchmark). */
  writes = 0;
  writeMs = 0;

  constructor(path: string) {
    this.path = path;
  }

  /** Writes the instance's state atomically; returns once the file and its folder are on disk. */
  save(instance: Instance): void {
    const started = performance.now();
    const state = instance.fake.persistentState();
    if (state.loaded !== this.#resetPointKey) {
      this.#resetPointText = JSON.stringify(state.resetPoint);
      this.#resetPointKey = state.loaded;
    }
    const head = JSON.stringify({
      format: FORMAT,
      version: VERSION,
      savedAt: new Date().toISOString(),
      clockOffsetSeconds: state.clockOffsetSeconds,
      settings: state.settings,
      tokens: state.tokens,
      changed: state.changed,
    });
    writeAtomically(this.path, `${head.slice(0, -1)},"resetPoint":${this.#resetPointText}}\n`);
    this.writes++;
    this.writeMs += performance.now() - started;
  }

  /**
   * The first write, at start when there is no file yet: a folder that does not exist or cannot
   * be written is a ConfigError naming the option and the folder, before anything is served (not
   * a failure at the first change).
   */
  create(instance: Instance): void {
    try {
      this.save(instance);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      const folder = dirname(resolve(this.path));
      const why =
        code === 'ENOENT'
          ? `the folder ${folder} does not exist; create it first (mkdir -p ${folder}) or name a file in a folder that exists`
          : `cannot be written in the folder ${folder} (${code}); name a file in a folder the fake may write to`;
      throw new ConfigError(`state file ${this.path} (--state-file, STATE_FILE): ${why}`);
    }
  }

  /**
   * Restores the instance from the file; false when there is no file. A file that cannot be
   * read back (not this format, or documents its own reset point refuses) is a ConfigError: the
   * fake does not start over it, so nothing is overwritten by mistake.
   */
  restore(instance: Instance): boolean {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw new ConfigError(
        `state file ${this.path}: cannot be read (${(error as NodeJS.ErrnoException).code})`,
      );
    }
    let body: StateFileBody;
    try {
      body = JSON.parse(text) as StateFileBody;
    } catch {
      throw new ConfigError(`state file ${this.path}: not JSON (move it away to start from the fixtures)`);
    }
    if (body?.format !== FORMAT || body.version !== VERSION) {
      throw new ConfigError(`state file ${this.path}: not a ${FORMAT} file of version ${VERSION}`);
    }
    const source = `state file ${this.path}`;
    const resetPoint = buildDataset(body.resetPoint, source);
    const changed = buildDataset({ ...body.resetPoint, documents: body.changed }, source).documents;
    instance.fake.restoreState({
      resetPoint,
      changed,
      tokens: Array.isArray(body.tokens) ? body.tokens : [],
      clockOffsetSeconds: Number(body.clockOffsetSeconds) || 0,
      settings: mergeSettings(instance.fake.settings, body.settings ?? {}),
    });
    return true;
  }
}

/** Writes `text` to `path` so that a crash leaves either the old file or the new one, whole. */
export function writeAtomically(path: string, text: string): void {
  const temporary = join(dirname(path), `.${process.pid}.${Date.now()}.tmp-state`);
  const fd = openSync(temporary, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temporary, path);
  // The rename itself is durable once the folder is.
  const dir = openSync(dirname(path), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Wraps the app so that every request that may change the root instance (any method but GET,
 * HEAD and OPTIONS, outside `/sessions/`) saves the state before its answer's head goes out, when
 * the answer is a success. A failed save answers the catalogue's `stateNotSaved` (500, in the
 * vendor shape, `errorBody`) in place of the answer, so no change that is not on disk is ever
 * acknowledged. The save runs at the head, not at the end, because JSON answers write their head
 * before their body. `servedByRoot` tells, once the request is routed, whether the root served it
 * (a request at the root URL with a session's own key is served by that session: nothing to save).
 */
export function saveAfterChanges(
  app: RequestListener,
  save: () => void,
  onError: (error: unknown) => void,
  errorBody: (apiRequestUid: string) => ErrorBody,
  servedByRoot: (res: ServerResponse) => boolean = () => true,
): RequestListener {
  return (req: IncomingMessage, res: ServerResponse) => {
    if (!SAFE_METHODS.has(req.method ?? 'GET') && !req.url?.startsWith('/sessions/')) {
      let failure: string | undefined;
      let decided = false;
      const decide = (status: number) => {
        if (decided) return;
        decided = true;
        if (status >= 400 || !servedByRoot(res)) return;
        try {
          save();
        } catch (error) {
          onError(error);
          failure = JSON.stringify(errorBody(String(res.getHeader('x-request-id') ?? 'none')));
        }
      };
      const writeHead = res.writeHead as (...args: unknown[]) => ServerResponse;
      const end = res.end as (...args: unknown[]) => ServerResponse;
      res.writeHead = function writeHeadAfterSaving(
        this: ServerResponse,
        status: number,
        ...rest: unknown[]
      ) {
        decide(status);
        if (failure === undefined) return writeHead.call(this, status, ...rest);
        return writeHead.call(this, 500, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': Buffer.byteLength(failure),
        });
      } as ServerResponse['writeHead'];
      res.end = function endAfterSaving(this: ServerResponse, ...args: unknown[]) {
        decide(res.statusCode);
        if (failure === undefined) return end.apply(this, args);
        if (!res.headersSent) res.writeHead(500);
        return end.call(this, failure);
      } as ServerResponse['end'];
    }
    app(req, res);
  };
}
