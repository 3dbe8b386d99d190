// Container entry point: picks the fixture set, then runs the CLI in this same process, so Node
// stays PID 1 and receives `docker stop`'s SIGTERM directly.
//
// Fixtures: an explicit FIXTURES variable (or --fixtures flag) wins; otherwise a file or folder
// mounted at /fixtures is used; otherwise the bundled default set.
import { readdirSync, statSync } from 'node:fs';

const MOUNT = '/fixtures';

function fail(message) {
  process.stderr.write(`error: ${message}\n`);
  process.exit(2);
}

if (!process.env.FIXTURES) {
  let stats;
  try {
    stats = statSync(MOUNT);
  } catch {
    stats = undefined; // nothing mounted: the default set
  }
  if (stats?.isDirectory() && readdirSync(MOUNT).length === 0) {
    // A bind mount of a host path that does not exist shows up as an empty folder.
    fail(
      `${MOUNT} is mounted but empty: check the host path of the volume (or unmount it for the default set)`,
    );
  }
  if (stats) process.env.FIXTURES = MOUNT;
}

// Node as PID 1 ignores SIGTERM/SIGINT unless a handler is installed. The CLI installs its own
// (graceful close) once it listens; until then, these exit at once.
const SIGNALS = { SIGTERM: 143, SIGINT: 130 };
for (const [signal, code] of Object.entries(SIGNALS)) {
  process.on(signal, () => {
    if (process.listenerCount(signal) === 1) process.exit(code);
  });
}

await import('../dist/start.js');
