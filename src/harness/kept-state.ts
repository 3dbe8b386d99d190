import type { RequestListener, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Settings } from '../config.js';
import { saveAfterChanges } from './hold-until-saved.js';
import type { Instance } from './instance.js';
import type { ControlChecks } from './instance-controls.js';
import type { SessionRegistry } from './sessions.js';
import { StateFile } from './state-file.js';

export interface KeptState {
  /** The app, every change it acknowledges on disk first. */
  app: RequestListener;
  file: StateFile;
}

/**
 * The root's and the sessions' state kept in a file (`--state-file`): read back from it, or
 * written first; settings given at this start (flag, variable, config file, option) win over the
 * root's read back; then every change the app acknowledges is on disk before its answer goes out.
 * `servedBy` names the instance a request was served by: a session's settings, clock and
 * controls are compared for changes only after a request it served.
 */
export function keepStateInFile(
  path: string,
  {
    root,
    app,
    given,
    logger,
    sessions,
    checks,
    servedBy,
  }: {
    root: Instance;
    app: RequestListener;
    given: Partial<Settings>;
    logger: Logger;
    sessions?: SessionRegistry;
    checks?: ControlChecks;
    servedBy?: (res: ServerResponse) => Instance | undefined;
  },
): KeptState {
  const file = new StateFile(path, {
    onCompactionError: (error) =>
      logger.warn({ err: error, stateFile: file.path }, 'state file not compacted'),
  });
  const restored = file.open(
    root,
    sessions && checks
      ? {
          registry: sessions,
          checks,
          onActivityError: (error) =>
            logger.warn({ err: error, stateFile: file.path }, "sessions' use and counts not written"),
        }
      : undefined,
  );
  const settingsGiven = Object.keys(given);
  if (restored && settingsGiven.length > 0) {
    root.fake.settings = { ...root.fake.settings, ...given };
    file.commit();
  }
  logger.info(
    { stateFile: file.path, restored, settingsGiven, sessions: sessions?.size ?? 0 },
    'state kept in a file',
  );
  const saving = saveAfterChanges(
    app,
    (res) => file.commit(servedBy?.(res)),
    (error) => logger.error({ err: error, stateFile: file.path }, 'state file not written'),
    () => root.fake.settings.errorSuccess,
  );
  return { app: saving, file };
}
