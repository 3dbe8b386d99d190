/**
 * Writes spec/config.schema.json, the JSON Schema of the config file, from the options table
 * (src/config.ts), so the two never drift (a test checks the file is current), formatted as the
 * linter formats JSON:
 *   npx tsx scripts/config-schema.ts
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { configSchema } from '../src/config.js';

const file = fileURLToPath(new URL('../spec/config.schema.json', import.meta.url));
writeFileSync(file, `${JSON.stringify(configSchema(), null, 2)}\n`);
execFileSync('npx', ['biome', 'format', '--write', file], { stdio: 'ignore' });
