import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, OPTION_SET } from '../../src/config.js';
import { optionsFromConfigFile, optionsFromConfigText } from '../../src/options/config-file.js';

describe('reading a config file', () => {
  it('reads every path option relative to the file, and leaves other text as written', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fake-options-'));
    const file = join(dir, 'fake.json');
    writeFileSync(
      file,
      JSON.stringify({
        fixtures: 'set.json',
        stateFile: '/var/state.json',
        tlsDir: 'tls',
        tlsCaCert: 'ca/ca.pem',
        tlsCaKey: 'ca/ca.key',
        adminHosts: 'fake',
      }),
    );
    expect(optionsFromConfigFile(OPTION_SET, file)).toEqual({
      fixtures: join(dir, 'set.json'),
      stateFile: '/var/state.json',
      tlsDir: join(dir, 'tls'),
      tlsCaCert: join(dir, 'ca/ca.pem'),
      tlsCaKey: join(dir, 'ca/ca.key'),
      adminHosts: 'fake',
    });
  });

  it('names the file and the key of a bad value, and never quotes a secret', () => {
    expect(() => optionsFromConfigText(OPTION_SET, '{"maxSessions": -1}', 'config file x.json')).toThrow(
      'config file x.json: maxSessions: invalid value -1; expected an integer from 0 to 100000',
    );
    expect(() => optionsFromConfigText(OPTION_SET, '{"adminToken": ""}', 'config file x.json')).toThrow(
      'config file x.json: adminToken: invalid value (not shown: a secret); expected a non-empty string',
    );
    expect(() => optionsFromConfigText(OPTION_SET, '{"constructor": 1}', 'config file x.json')).toThrow(
      ConfigError,
    );
    expect(() => optionsFromConfigFile(OPTION_SET, join(tmpdir(), 'no-such-fake-config.json'))).toThrow(
      /cannot be read \(ENOENT\)/,
    );
  });
});
