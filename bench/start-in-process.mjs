// One start of the programmatic API in a fresh process, as a test file does it: import the
// package's entry point, createMockServer() with the default fixtures, listen on the given port.
//   node bench/start-in-process.mjs PORT
import { createMockServer } from '../dist/bundle/index.js';

const mock = await createMockServer({ logLevel: 'silent' });
await mock.listen(Number(process.argv[2]), '127.0.0.1');
for (const signal of ['SIGTERM', 'SIGINT'])
  process.once(signal, () => void mock.close().then(() => process.exit(0)));
