/**
 * Preloaded into the fake for the memory measurement (`node --expose-gc --import <this> dist/cli.js`):
 * on SIGUSR2 it runs a full garbage collection twice and then writes `gc-done` to stderr, so the
 * benchmark reads the resident set size of live data only. It changes nothing else.
 */
process.on('SIGUSR2', () => {
  globalThis.gc?.();
  globalThis.gc?.();
  process.stderr.write('gc-done\n');
});
