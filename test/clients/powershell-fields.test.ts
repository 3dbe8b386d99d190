/**
 * The PowerShell module is held to the spec's fields, not only its operations' names
 * (helpers-parity.test.ts). Read as text (no pwsh needed, so it runs in `npm test`'s first
 * stage), each command an admin operation names in `x-powershell` has its param block compared
 * with that operation's request (path and query parameters, body properties) both ways: a field
 * the spec has that none of the operation's commands can send, a parameter that sends a field the
 * spec lacks, a required field behind a parameter that is not mandatory, a type that cannot hold
 * the field, and the `[ValidateRange]`, `[ValidateLength]` and `[ValidateSet]` attributes against
 * the spec's bounds. A parameter sends the field of its name in camel case unless the module's
 * `$script:FieldOfParameter` (Private/spec-fields.ps1) names another. Each finding names the
 * command, the operation and the field. The three changes a spec edit makes most often are made
 * to a copy of the spec here, and three to the module's text, so this test keeps proving it
 * catches them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type PowerShellOperation, powershellOperations } from '../../scripts/powershell-spec-fields.js';
import type { RequestField } from '../../scripts/python-spec-types.js';
import { loadSpec, type OpenApiDocument } from '../../src/contract/spec-document.js';
import { editedSchema, type ObjectSchema } from '../support/spec-edits.js';

const MODULE = 'clients/powershell/PassportalFake';
const read = (path: string): string => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

interface PsParameter {
  name: string;
  /** The type in brackets (`int`, `string`, `switch`, `object[]`), or '' when untyped. */
  type: string;
  /** Attribute name to its argument text: `ValidateRange` to `1, 86400`. */
  attributes: Map<string, string>;
  mandatory: boolean;
  /** In a named parameter set (an alternative to other parameters). */
  inSet: boolean;
}

interface PsCommand {
  parameters: PsParameter[];
  body: string;
}

/**
 * The text from `open` (an opening bracket) to its closing one, skipping strings, `#` comments
 * and `<# #>` help.
 */
function balanced(text: string, open: number): string {
  const closers: Record<string, string> = { '(': ')', '[': ']', '{': '}' };
  const stack: string[] = [];
  for (let i = open; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '<' && text[i + 1] === '#') {
      const end = text.indexOf('#>', i);
      i = end < 0 ? text.length : end + 1;
      continue;
    }
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      i = end < 0 ? text.length : end;
      continue;
    }
    if (c === '#') {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end;
      continue;
    }
    if (c in closers) stack.push(closers[c] as string);
    else if (c === stack[stack.length - 1]) {
      stack.pop();
      if (stack.length === 0) return text.slice(open, i + 1);
    }
  }
  throw new Error(`unbalanced bracket at ${open}: ${text.slice(open, open + 60)}`);
}

/** `text` split at its top-level commas. */
function topLevel(text: string): string[] {
  const parts: string[] = [];
  let at = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if ('([{\'"'.includes(c) || c === '#') {
      if (c === '#') i = text.indexOf('\n', i) < 0 ? text.length : text.indexOf('\n', i);
      else if (c === "'" || c === '"') i = text.indexOf(c, i + 1);
      else i += balanced(text, i).length - 1;
      continue;
    }
    if (c === ',') {
      parts.push(text.slice(at, i));
      at = i + 1;
    }
  }
  parts.push(text.slice(at));
  return parts.map((p) => p.trim()).filter(Boolean);
}

function parameterOf(text: string): PsParameter {
  const attributes = new Map<string, string>();
  let type = '';
  let rest = text
    .replace(/<#[\s\S]*?#>/g, '')
    .split('\n')
    .filter((line) => !line.trim().startsWith('#'))
    .join('\n')
    .trim();
  while (rest.startsWith('[')) {
    const group = balanced(rest, 0);
    const inner = group.slice(1, -1).trim();
    const call = /^([\w.]+)\s*\(/.exec(inner);
    if (call) attributes.set(call[1] as string, inner.slice(call[0].length, inner.lastIndexOf(')')).trim());
    else type = inner;
    rest = rest.slice(group.length).trim();
  }
  const name = /^\$(\w+)/.exec(rest)?.[1];
  if (name === undefined) throw new Error(`not a parameter: ${text}`);
  const parameter = attributes.get('Parameter') ?? '';
  return {
    name,
    type: type.toLowerCase(),
    attributes,
    mandatory: /(^|,)\s*Mandatory\b(?!\s*=\s*\$false)/i.test(parameter),
    inSet: /ParameterSetName\s*=/i.test(parameter),
  };
}

/** The functions of a script's text, each with its param block read and its body's text. */
function commandsOf(source: string): Map<string, PsCommand> {
  const commands = new Map<string, PsCommand>();
  const heads = [...source.matchAll(/^function ([\w-]+)\s*\{/gm)];
  for (const head of heads) {
    const start = (head.index ?? 0) + head[0].length - 1;
    const body = balanced(source, start);
    const help = body.indexOf('#>');
    const param = /\bparam\s*\(/i.exec(body.slice(help < 0 ? 0 : help));
    const parameters =
      param === null
        ? []
        : topLevel(
            balanced(body, (help < 0 ? 0 : help) + param.index + param[0].length - 1).slice(1, -1),
          ).map(parameterOf);
    commands.set(head[1] as string, { parameters, body });
  }
  return commands;
}

/** `'Command' = @{ Param = 'field'; Other = $null }` lines of a table in spec-fields.ps1. */
function tableOf(source: string, variable: string): Map<string, Map<string, string | null>> {
  const start = source.indexOf(`$script:${variable} = @{`);
  if (start < 0) throw new Error(`spec-fields.ps1 has no $script:${variable}`);
  const text = balanced(source, source.indexOf('{', start));
  const table = new Map<string, Map<string, string | null>>();
  for (const m of text.matchAll(/^\s*'([\w-]+)'\s*=\s*@\{(.*)\}\s*$/gm)) {
    const entries = new Map<string, string | null>();
    for (const entry of (m[2] as string).split(/;(?=\s*\w+\s*=)/)) {
      const pair = /^\s*(\w+)\s*=\s*(?:'((?:[^']|'')*)'|(\$null))\s*$/.exec(entry);
      if (!pair) throw new Error(`${variable}: cannot read ${entry}`);
      entries.set(pair[1] as string, pair[2] === undefined ? null : pair[2].replace(/''/g, "'"));
    }
    table.set(m[1] as string, entries);
  }
  return table;
}

const camel = (name: string): string => `${name.charAt(0).toLowerCase()}${name.slice(1)}`;
const NUMBER = /^-?\d+(\.\d+)?(e\d+)?$/i;
/** A bound as written: a number, or `[int]::MaxValue`-like for "no bound". */
const boundText = (text: string | undefined): string | undefined => {
  if (text === undefined) return undefined;
  const t = text.trim();
  if (NUMBER.test(t)) return String(Number(t));
  if (/^\[\w+\]::(Max|Min)Value$/i.test(t)) return 'none';
  return t;
};
const args = (text: string): string[] => topLevel(text).map((a) => a.replace(/^'(.*)'$|^"(.*)"$/, '$1$2'));

const TYPES: Record<string, RegExp> = {
  integer: /^(int|long|int32|int64|uint32|uint64|short|byte|double)$/,
  number: /^(int|long|int32|int64|double|single|float|decimal)$/,
  boolean: /^(switch|bool)$/,
  string: /^(string|switch)$/,
};

/** Every way a parameter's attributes differ from its field's bounds, as finding lines. */
function boundDrift(who: string, p: PsParameter, field: RequestField, exempt: string): string[] {
  if (p.type === 'switch' || p.type === 'hashtable') return [];
  const drift: string[] = [];
  const { minimum, maximum, minLength, maxLength } = field.bounds;
  const range = p.attributes.get('ValidateRange');
  const [low, high] = range === undefined ? [] : args(range).map(boundText);
  const check = (bound: string, spec: number | undefined, seen: string | undefined): void => {
    if (exempt.includes(bound.toLowerCase())) return;
    const wanted = spec === undefined ? 'none' : String(spec);
    const got = seen ?? 'none';
    if (wanted !== got)
      drift.push(`${who}: \`${field.name}\` ${bound}: the spec says ${wanted}, -${p.name} checks ${got}`);
  };
  check('minimum', minimum, low);
  check('maximum', maximum, high);
  let short: string | undefined;
  let long: string | undefined;
  const length = p.attributes.get('ValidateLength');
  if (length !== undefined) [short, long] = args(length).map(boundText);
  else if (p.attributes.has('ValidateNotNullOrEmpty')) [short, long] = ['1', 'none'];
  check('minLength', minLength === 0 ? undefined : minLength, short === '0' ? undefined : short);
  check('maxLength', maxLength, long);
  const set = p.attributes.get('ValidateSet');
  const values = set === undefined ? undefined : args(set).sort();
  const wanted = field.bounds.enum?.map(String).sort();
  if (!exempt.includes('enum') && JSON.stringify(values) !== JSON.stringify(wanted))
    drift.push(
      `${who}: \`${field.name}\` enum: the spec says ${wanted?.join(', ') ?? 'none'}, -${p.name} checks ${values?.join(', ') ?? 'none'}`,
    );
  return drift;
}

/**
 * Every way the module's commands differ from the spec's admin operations' fields, one line each
 * naming the command, the operation and the field.
 */
function powershellFieldDrift(document: OpenApiDocument, sources: Map<string, string>): string[] {
  const specFields = sources.get('Private/spec-fields.ps1') ?? '';
  const names = tableOf(specFields, 'FieldOfParameter');
  const exceptions = tableOf(specFields, 'FieldExceptions');
  const commands = new Map<string, PsCommand>();
  for (const [file, text] of sources)
    if (file.startsWith('Public/')) for (const [name, c] of commandsOf(text)) commands.set(name, c);
  const operations = powershellOperations(document);
  const opsOf = (command: string): PowerShellOperation[] =>
    operations.filter((op) => op.commands.includes(command));
  const drift: string[] = [];
  // What each operation's commands can send: field name to the parameters that send it.
  const sendable = new Map<string, Map<string, Array<{ command: string; p: PsParameter }>>>();
  for (const op of operations) sendable.set(op.operationId, new Map());
  const checked = new Set<string>();
  for (const op of operations)
    for (const command of op.commands) {
      if (checked.has(command)) continue;
      checked.add(command);
      const found = commands.get(command);
      const ops = opsOf(command);
      const who = `${command} (${ops.map((o) => o.operationId).join('/')})`;
      if (found === undefined) {
        drift.push(`${who}: the module has no command ${command}`);
        continue;
      }
      const aliases = names.get(command) ?? new Map<string, string | null>();
      for (const name of aliases.keys())
        if (!found.parameters.some((p) => p.name === name))
          drift.push(`${who}: $script:FieldOfParameter names -${name}, which the command lacks`);
      for (const p of found.parameters) {
        if (p.name === 'Fake') continue;
        const field = aliases.has(p.name) ? aliases.get(p.name) : camel(p.name);
        if (field === null || field === undefined) continue;
        if (field === '*') {
          // A hashtable of the body's fields (or the body whole), checked at run time.
          for (const o of ops) {
            const byField = sendable.get(o.operationId);
            for (const f of o.fields.filter((f) => f.where === 'body'))
              byField?.set(f.name, [...(byField.get(f.name) ?? []), { command, p }]);
            if (
              !o.wholeBody &&
              !new RegExp(`Assert-FakeField\\b[^\\n]*-Operation ${o.operationId}\\b`).test(found.body)
            )
              drift.push(
                `${command} (${o.operationId}): -${p.name} takes fields as a hashtable, but the command does not check them against ${o.operationId}'s (Assert-FakeField)`,
              );
          }
          continue;
        }
        const owner = ops.find((o) => o.fields.some((f) => f.name === field));
        if (owner === undefined) {
          drift.push(
            `${who}: -${p.name} sends \`${field}\`, which the spec's ${ops.map((o) => o.operationId).join('/')} lacks`,
          );
          continue;
        }
        const spec = owner.fields.find((f) => f.name === field) as RequestField;
        const byField = sendable.get(owner.operationId);
        byField?.set(field, [...(byField.get(field) ?? []), { command, p }]);
        const here = `${command} (${owner.operationId})`;
        if (!spec.required && p.mandatory && !p.inSet)
          drift.push(`${here}: the spec has \`${field}\` optional, but -${p.name} is mandatory`);
        const types = spec.type.split('|');
        const exempt = (exceptions.get(command)?.get(p.name) ?? '').split(':')[0]?.toLowerCase() ?? '';
        if (
          p.type !== '' &&
          !exempt.includes('type') &&
          types.every((t) => TYPES[t] !== undefined && !TYPES[t]?.test(p.type))
        )
          drift.push(`${here}: \`${field}\` is ${spec.type} in the spec, but -${p.name} is [${p.type}]`);
        drift.push(...boundDrift(here, p, spec, exempt));
      }
    }
  for (const op of operations) {
    const byField = sendable.get(op.operationId) ?? new Map();
    const who = `${op.commands.join('/')} (${op.operationId})`;
    for (const field of op.fields) {
      const senders = byField.get(field.name) ?? [];
      if (senders.length === 0) {
        drift.push(
          `${who}: cannot send the spec's ${field.required ? 'required ' : ''}${field.where} field \`${field.name}\``,
        );
        continue;
      }
      if (
        field.required &&
        !senders.some((s: { p: PsParameter }) => s.p.mandatory || s.p.type === 'hashtable')
      )
        drift.push(`${who}: the spec requires \`${field.name}\`, but no parameter sending it is mandatory`);
    }
  }
  for (const [command, entries] of exceptions)
    for (const [parameter, reason] of entries)
      if (
        !/^(Type|Minimum|Maximum|MinLength|MaxLength|Enum)(, (Type|Minimum|Maximum|MinLength|MaxLength|Enum))*: \S/.test(
          reason ?? '',
        )
      )
        drift.push(
          `${command}: the exception for -${parameter} must name its bounds and its reason ('Maximum: why')`,
        );
  return drift;
}

const moduleSources = (): Map<string, string> => {
  const sources = new Map<string, string>();
  for (const folder of ['Public', 'Private'])
    for (const file of readdirSync(new URL(`../../${MODULE}/${folder}`, import.meta.url)))
      if (file.endsWith('.ps1')) sources.set(`${folder}/${file}`, read(`${MODULE}/${folder}/${file}`));
  return sources;
};

const document = loadSpec().document;
const sources = moduleSources();
const drift = (doc: OpenApiDocument): string[] => powershellFieldDrift(doc, sources);
/** The module's text with one file's text replaced once. */
const withEdit = (file: string, from: string, to: string): Map<string, string> => {
  const text = sources.get(file) ?? '';
  expect(text).toContain(from);
  return new Map([...sources, [file, text.replace(from, to)]]);
};

/** A copy of the spec with `edit` applied to one of its components' object schemas. */
const edited = (name: string, edit: (schema: ObjectSchema) => void): OpenApiDocument =>
  editedSchema(document, name, edit);

describe('the PowerShell commands take every field of their admin operation, and only those', () => {
  it('finds no difference between the commands and the spec', () => {
    expect(drift(document)).toEqual([]);
  });

  it("types every command's -Fake as PassportalFakeTarget, which help names", () => {
    const fakes = [...sources.entries()]
      .filter(([file]) => file.startsWith('Public/'))
      .flatMap(([, text]) =>
        [...commandsOf(text).entries()].flatMap(([name, command]) =>
          command.parameters.filter((p) => p.name === 'Fake').map((p) => `${name}: ${p.type}`),
        ),
      );
    expect(fakes.length).toBeGreaterThan(30);
    // Stop-PassportalFake stops what Start-PassportalFake returned, never a session or a URL.
    expect(fakes.filter((f) => !f.endsWith(': passportalfaketarget'))).toEqual([
      'Stop-PassportalFake: psobject',
    ]);
  });

  it('reads every command and every field (the comparison is not vacuous)', () => {
    const operations = powershellOperations(document);
    expect(operations.length).toBeGreaterThan(30);
    const fields = operations.flatMap((o) => o.fields.map((f) => `${o.operationId}.${f.name}`));
    expect(fields).toEqual(
      expect.arrayContaining([
        'createFault.seed',
        'createFault.probability',
        'createFault.drop',
        'createRateLimit.windowSeconds',
        'listRequests.since',
      ]),
    );
    const fault = commandsOf(sources.get('Public/faults.ps1') ?? '').get('Add-PassportalFakeFault');
    expect(fault?.parameters.map((p) => p.name)).toEqual([
      'Method',
      'Path',
      'Status',
      'Body',
      'Headers',
      'DelayMs',
      'Times',
      'Drop',
      'Probability',
      'Seed',
      'After',
      'Fake',
    ]);
  });
});

describe('a change to the spec alone fails here, naming the command and the field', () => {
  it('a renamed field: `windowSeconds` to `window`', () => {
    const renamed = edited('RateLimitInput', (input) => {
      input.properties = Object.fromEntries(
        Object.entries(input.properties).map(([k, v]) => [k === 'windowSeconds' ? 'window' : k, v]),
      );
      input.required = input.required.map((n) => (n === 'windowSeconds' ? 'window' : n));
    });
    expect(drift(renamed)).toEqual([
      "Add-PassportalFakeRateLimit (createRateLimit): -WindowSeconds sends `windowSeconds`, which the spec's createRateLimit lacks",
      "Add-PassportalFakeRateLimit (createRateLimit): cannot send the spec's required body field `window`",
    ]);
  });

  it("a changed bound: `limit`'s minimum, in a body and in a query", () => {
    const rebounded = edited('RateLimitInput', (input) => {
      input.properties.limit = { ...input.properties.limit, minimum: 0 };
    });
    expect(drift(rebounded)).toEqual([
      'Add-PassportalFakeRateLimit (createRateLimit): `limit` minimum: the spec says 0, -Limit checks 1',
    ]);
    const query = structuredClone(document) as OpenApiDocument;
    const list = query.paths['/__admin/requests']?.get as {
      parameters: Array<{ name: string; schema: object }>;
    };
    for (const parameter of list.parameters)
      if (parameter.name === 'limit') parameter.schema = { ...parameter.schema, minimum: 0 };
    expect(drift(query)).toEqual([
      'Get-PassportalFakeRequest (listRequests): `limit` minimum: the spec says 0, -Limit checks 1',
    ]);
  });

  it('a required field added to POST /__admin/faults', () => {
    const added = edited('FaultInput', (input) => {
      input.properties.reason = { type: 'string', maxLength: 200 };
      input.required.push('reason');
    });
    expect(drift(added)).toEqual([
      "Add-PassportalFakeFault (createFault): cannot send the spec's required body field `reason`",
    ]);
  });
});

describe('a change to the module alone fails here too', () => {
  it('a renamed parameter, a lost parameter, a bound edited by hand', () => {
    let changed = withEdit('Public/rate-limits.ps1', '[int] $WindowSeconds,', '[int] $Window,');
    expect(powershellFieldDrift(document, changed)).toEqual([
      "Add-PassportalFakeRateLimit (createRateLimit): -Window sends `window`, which the spec's createRateLimit lacks",
      "Add-PassportalFakeRateLimit (createRateLimit): cannot send the spec's required body field `windowSeconds`",
    ]);
    changed = withEdit('Public/faults.ps1', '        [ValidateRange(0, 4294967295)] [long] $Seed,\n', '');
    expect(powershellFieldDrift(document, changed)).toEqual([
      "Add-PassportalFakeFault (createFault): cannot send the spec's body field `seed`",
    ]);
    changed = withEdit(
      'Public/rate-limits.ps1',
      'ValidateRange(1, 86400)',
      'ValidateRange(1, [int]::MaxValue)',
    );
    expect(powershellFieldDrift(document, changed)).toEqual([
      'Add-PassportalFakeRateLimit (createRateLimit): `windowSeconds` maximum: the spec says 86400, -WindowSeconds checks none',
    ]);
  });

  it('a required field behind an optional parameter, a wrong type, an enum, an unchecked hashtable', () => {
    const changed = withEdit(
      'Public/rate-limits.ps1',
      "[Parameter(Mandatory)] [ValidateSet('key', 'token', 'session', 'instance')] [string] $Per,",
      "[ValidateSet('key', 'token', 'session')] [int] $Per,",
    );
    expect(powershellFieldDrift(document, changed)).toEqual([
      'Add-PassportalFakeRateLimit (createRateLimit): `per` is string in the spec, but -Per is [int]',
      'Add-PassportalFakeRateLimit (createRateLimit): `per` enum: the spec says instance, key, session, token, -Per checks key, session, token',
      'Add-PassportalFakeRateLimit (createRateLimit): the spec requires `per`, but no parameter sending it is mandatory',
    ]);
    const unchecked = withEdit(
      'Public/state.ps1',
      'Assert-FakeField -Cmdlet $PSCmdlet -Operation updateSettings',
      '#',
    );
    expect(powershellFieldDrift(document, unchecked)).toEqual([
      "Set-PassportalFakeSetting (updateSettings): -Setting takes fields as a hashtable, but the command does not check them against updateSettings's (Assert-FakeField)",
    ]);
  });
});

describe('reading PowerShell param blocks', () => {
  it('reads attributes, types, mandatory and parameter sets, past help, strings and comments', () => {
    const source = [
      'function Add-Thing {',
      '    <#',
      '    .SYNOPSIS',
      '    A (thing), param(x) in help.',
      '    #>',
      '    [CmdletBinding()]',
      '    param(',
      "        [Parameter(Mandatory, ParameterSetName = 'A')] [ValidateSet('a,b', 'c')] [string] $Kind,",
      '        # a comment, with (brackets',
      '        [ValidateRange(0, [int]::MaxValue)] [int] $Count = 3,',
      '        [Parameter(Mandatory = $false)] [object[]] $Items,',
      "        [Parameter(ValueFromPipelineByPropertyName)] [Alias('Session', 'Url', 'PassportalFake')] [PassportalFakeTarget] $Fake",
      '    )',
      '    process { "{" }',
      '}',
      'function Get-None { "no params" }',
    ].join('\n');
    const commands = commandsOf(source);
    expect([...commands.keys()]).toEqual(['Add-Thing', 'Get-None']);
    const [kind, count, items, fake] = commands.get('Add-Thing')?.parameters ?? [];
    expect(kind).toMatchObject({ name: 'Kind', type: 'string', mandatory: true, inSet: true });
    expect(kind?.attributes.get('ValidateSet')).toBe("'a,b', 'c'");
    expect(count).toMatchObject({ name: 'Count', type: 'int', mandatory: false });
    expect(count?.attributes.get('ValidateRange')).toBe('0, [int]::MaxValue');
    expect(items).toMatchObject({ name: 'Items', type: 'object[]', mandatory: false });
    expect(fake).toMatchObject({ name: 'Fake', type: 'passportalfaketarget', mandatory: false });
    expect(fake?.attributes.get('Alias')).toBe("'Session', 'Url', 'PassportalFake'");
    expect(commands.get('Get-None')?.parameters).toEqual([]);
  });
});
