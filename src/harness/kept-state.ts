import type { RequestListener } from 'node:http';
import type { Logger } from 'pino';
import type { Settings } from '../config.js';
import { saveAfterChanges } from './hold-until-saved.js';
import type { Instance } from './instance.js';
import { StateFile } from './state-file.js';

export interface KeptState {
  /** The app, every change it acknowledges on disk first. */
  app: RequestListener;
  file: StateFile;
}

/**
 * The root's state kept in a file (`--state-file`): read back from it, or written first; settings
 * given at this start (flag, variable, config file, option) win over those read back; then every
 * change the app acknowledges is on disk before its answer goes out.
 */
export function keepStateInFile(
  path: string,
  {
    root,
    app,
    given,
    logger,
  }: { root: Instance; app: RequestListener; given: Partial<Settings>; logger: Logger },
): KeptState {
  const file = new StateFile(path, {
    onCompactionError: (error) =>
      logger.warn({ err: error, stateFile: file.path }, 'state file not compacted'),
  });
  const restored = file.open(root);
  const settingsGiven = Object.keys(given);
  if (restored && settingsGiven.length > 0) {
    root.fake.settings = { ...root.fake.settings, ...given };
    file.commit();
  }
  logger.info({ stateFile: file.path, restored, settingsGiven }, 'state kept in a file');
  const saving = saveAfterChanges(
    app,
    () => file.commit(),
    (error) => logger.error({ err: error, stateFile: file.path }, 'state file not written'),
    () => root.fake.settings.errorSuccess,
  );
  return { app: saving, file };
}
