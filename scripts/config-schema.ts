/**
 * Writes spec/config.schema.json, the JSON Schema of the config file, from the options table
 * (src/config.ts), so the two never drift (a test checks the file is current):
 *   npx tsx scripts/config-schema.ts
 */
import { writeFileSync } from 'node:fs';
import { configSchema } from '../src/config.js';

writeFileSync(
  new URL('../spec/config.schema.json', import.meta.url),
  `${JSON.stringify(configSchema(), null, 2)}\n`,
);
