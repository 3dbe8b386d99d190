import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  bool,
  defaultsOf,
  envName,
  flagName,
  int,
  type OptionsOf,
  oneOf,
  path,
  type SettingKeyOf,
  setting,
  specsOf,
  text,
} from '../../src/options/declare.js';

/** How an option is declared: the builders tie each default to its kind, at compile time too. */

describe('declaring options', () => {
  it('derives flag and environment names from the key', () => {
    expect(flagName('stateFile')).toBe('--state-file');
    expect(envName('stateFile')).toBe('STATE_FILE');
    expect(flagName('tlsCaCert')).toBe('--tls-ca-cert');
    expect(envName('maxResultsPerPage')).toBe('MAX_RESULTS_PER_PAGE');
    expect(flagName('port')).toBe('--port');
    expect(envName('port')).toBe('PORT');
  });

  it('reads the options type, the defaults and the settings off the declarations', () => {
    const declared = {
      size: int(1, 10, 5, 'a size'),
      name: text(undefined, 'a name'),
      mode: setting(oneOf(['fast', 'slow'], 'slow', 'a mode')),
      loud: bool(false, 'loud or not'),
      file: path('a file'),
    };
    type Declared = OptionsOf<typeof declared>;
    expectTypeOf<Declared>().toEqualTypeOf<{
      size: number;
      name: string | undefined;
      mode: 'fast' | 'slow';
      loud: boolean;
      file: string | undefined;
    }>();
    expectTypeOf<SettingKeyOf<typeof declared>>().toEqualTypeOf<'mode'>();
    expect(defaultsOf(declared)).toEqual({
      size: 5,
      name: undefined,
      mode: 'slow',
      loud: false,
      file: undefined,
    });
    expect(declared.mode.setting).toBe(true);
    expect(declared.size.setting).toBe(false);
    expect(declared.file.path).toBe(true);
  });

  it('refuses a default of the wrong kind at compile time', () => {
    // @ts-expect-error a text default for an integer
    const wrongInt = int(0, 10, '5', 'ten');
    // @ts-expect-error a word not among the values
    const wrongWord = oneOf(['a', 'b'], 'c', 'a or b');
    // @ts-expect-error a number for a flag
    const wrongBool = bool(1, 'yes or no');
    // The values still carry their kinds; only the compiler objects.
    expect([wrongInt.kind.type, wrongWord.kind.type, wrongBool.kind.type]).toEqual([
      'integer',
      'enum',
      'boolean',
    ]);
  });

  it('lists every option in group order with its names, and refuses a key declared in two groups', () => {
    const specs = specsOf({
      first: { alpha: int(0, 1, 0, 'alpha'), betaGamma: text('x', 'beta') },
      second: { delta: bool(true, 'delta') },
    });
    expect(specs.map((s) => [s.key, s.group, s.flag, s.env])).toEqual([
      ['alpha', 'first', '--alpha', 'ALPHA'],
      ['betaGamma', 'first', '--beta-gamma', 'BETA_GAMMA'],
      ['delta', 'second', '--delta', 'DELTA'],
    ]);
    expect(() =>
      specsOf({ first: { alpha: int(0, 1, 0, 'alpha') }, second: { alpha: int(0, 2, 0, 'alpha again') } }),
    ).toThrow('option alpha is declared twice (again in group second)');
  });
});
