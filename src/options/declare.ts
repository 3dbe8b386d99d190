/**
 * How an option is declared (`src/config.ts` holds the declarations): a kind, a default of that
 * kind's type, one description, and traits. The builders tie the default to the kind, so
 * `int(0, 10, 'ten', ...)` or `oneOf(['a', 'b'], 'c', ...)` does not compile; the `Options` type
 * is read off the declarations, so an option cannot lack one. Flag and environment names follow
 * from the key: `stateFile` is `--state-file` and `STATE_FILE`.
 */

export type Kind =
  | { type: 'integer'; min: number; max: number }
  | { type: 'string' }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'boolean' };

/** One option as declared, before it has a key. `T` is the type of its value. */
export interface Declared<T> {
  readonly kind: Kind;
  readonly default: T;
  readonly description: string;
  /** Changeable per instance at run time (`PUT /__admin/settings`), not only at start. */
  readonly setting: boolean;
  /** Never quoted back in a message (a token). */
  readonly secret: boolean;
  /** A file or folder path; one given in a config file is relative to that file. */
  readonly path: boolean;
  /** A flag that may be given more than once: its values joined with commas. */
  readonly repeatable?: boolean;
  /** The environment variable, when not the one the key makes (`tenants` is read from `TENANTS_FILE`). */
  readonly envName?: string;
}

/** A declaration of any value type (a `Declared<number>` is one: its default is read only). */
export type AnyDeclared = Declared<unknown>;

/** The type of a declared option's value. */
export type ValueOf<D> = D extends Declared<infer T> ? T : never;

/** The options object a table of declarations describes. */
export type OptionsOf<D extends Record<string, AnyDeclared>> = { -readonly [K in keyof D]: ValueOf<D[K]> };

/** The keys of the declarations marked `setting(...)`. */
export type SettingKeyOf<D extends Record<string, AnyDeclared>> = {
  [K in keyof D]: D[K] extends { readonly setting: true } ? K : never;
}[keyof D];

const declared = <T>(kind: Kind, value: T, description: string): Declared<T> => ({
  kind,
  default: value,
  description,
  setting: false,
  secret: false,
  path: false,
});

/** An integer from `min` to `max`; a default of `undefined` means "absent unless given". */
export const int = <D extends number | undefined>(min: number, max: number, value: D, description: string) =>
  declared<number | D>({ type: 'integer', min, max }, value, description);

/** A non-empty string. */
export const text = <D extends string | undefined>(value: D, description: string) =>
  declared<string | D>({ type: 'string' }, value, description);

/** A file or folder path, absent unless given. */
export const path = (description: string): Declared<string | undefined> => ({
  ...text(undefined, description),
  path: true,
});

/** One of a few words. */
export const oneOf = <const V extends readonly [string, ...string[]]>(
  values: V,
  value: V[number],
  description: string,
) => declared<V[number]>({ type: 'enum', values }, value, description);

/** True or false (`1`, `yes`, `on` and an empty value read as true). */
export const bool = (value: boolean, description: string) =>
  declared<boolean>({ type: 'boolean' }, value, description);

/** Marks a text option whose flag may be repeated (the values joined with commas). */
export const repeatable = <T>(option: Declared<T>): Declared<T> => ({ ...option, repeatable: true });

/** Marks an option as a run-time setting of each instance. */
export const setting = <T>(option: Declared<T>): Declared<T> & { readonly setting: true } => ({
  ...option,
  setting: true,
});

/** Gives an option an environment variable other than the one its key makes. */
export const readFrom = <T>(variable: string, option: Declared<T>): Declared<T> => ({
  ...option,
  envName: variable,
});

/** Marks an option whose value is never shown. */
export const secret = <T>(option: Declared<T>): Declared<T> => ({ ...option, secret: true });

/** An option with its key, its group and the names it is given by on the command line and in the environment. */
export interface OptionSpec<K extends string = string, G extends string = string> extends AnyDeclared {
  readonly key: K;
  readonly group: G;
  readonly flag: string;
  readonly env: string;
}

/**
 * The options a reader in this folder works from, handed in by `config.ts` (`OPTION_SET`) so that
 * nothing here reaches back up: the declarations, their defaults and the `--help` group headings.
 */
export interface OptionSet<O extends object> {
  readonly specs: ReadonlyArray<OptionSpec<Extract<keyof O, string>>>;
  readonly defaults: O;
  readonly groupTitles: Readonly<Record<string, string>>;
}

/** `stateFile` → `state-file`. */
const kebab = (key: string): string => key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

export const flagName = (key: string): string => `--${kebab(key)}`;
export const envName = (key: string): string => kebab(key).replace(/-/g, '_').toUpperCase();

/** The keys declared in any of the groups. */
type KeyOf<Groups> = { [G in keyof Groups]: keyof Groups[G] & string }[keyof Groups];

/**
 * Every option of every group, in the order declared, with its key, group and names. A key
 * declared in two groups throws here, at load, since spreading the groups into one object would
 * keep the later one without a word.
 */
export function specsOf<Groups extends Record<string, Record<string, AnyDeclared>>>(
  groups: Groups,
): Array<OptionSpec<KeyOf<Groups>, keyof Groups & string>> {
  const out: Array<OptionSpec<KeyOf<Groups>, keyof Groups & string>> = [];
  const seen = new Set<string>();
  for (const [group, options] of Object.entries(groups)) {
    for (const [key, option] of Object.entries(options)) {
      if (seen.has(key)) throw new Error(`option ${key} is declared twice (again in group ${group})`);
      seen.add(key);
      out.push({
        ...option,
        key: key as KeyOf<Groups>,
        group,
        flag: flagName(key),
        env: option.envName ?? envName(key),
      });
    }
  }
  return out;
}

/** The options object holding every declared default. */
export function defaultsOf<D extends Record<string, AnyDeclared>>(declared: D): OptionsOf<D> {
  const out: Record<string, unknown> = {};
  for (const [key, option] of Object.entries(declared)) out[key] = option.default;
  return out as OptionsOf<D>;
}
