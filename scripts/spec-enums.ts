/**
 * The enums of spec/openapi.yaml that list a catalogue of the code, written from that catalogue
 * so the spec never drifts from it: the notice codes (src/notices.ts), the behaviour groups
 * (src/harness/verdicts/behaviours.ts), the rate-limit scopes, the report formats, and the values of each
 * run-time setting (src/config.ts). Only the enums' own lines change; the rest of the file, its
 * comments and layout included, is left as written. `npm run generate` writes them;
 * test/spec-enums.test.ts fails when the spec is not what this makes of it.
 */
import { isMap, isSeq, type Node, parseDocument } from 'yaml';
import { OPTION_SPECS, SETTING_KEYS } from '../src/config.js';
import { RATE_LIMIT_SCOPES } from '../src/harness/controls/rate-limits.js';
import { BEHAVIOURS } from '../src/harness/verdicts/behaviours.js';
import { REPORT_FORMATS } from '../src/harness/verdicts/report.js';
import { NOTICE_CODES } from '../src/notices.js';

/**
 * A step into the spec: a key of a mapping, or `{ name }` for the item of a sequence with that
 * `name` (a parameter).
 */
type Step = string | { name: string };

export interface SpecEnum {
  /** Where the enum's schema is, for a person: `components/schemas/Notice/properties/code`. */
  where: string;
  /** The steps from the document's root to the schema holding `enum`. */
  path: readonly Step[];
  /** The catalogue it lists, in the catalogue's order. */
  values: () => readonly string[];
}

const settingEnums: SpecEnum[] = SETTING_KEYS.flatMap((key) => {
  const kind = OPTION_SPECS.find((spec) => spec.key === key)?.kind;
  if (kind?.type !== 'enum') return [];
  return [
    {
      where: `components/schemas/Settings/properties/${key}`,
      path: ['components', 'schemas', 'Settings', 'properties', key],
      values: () => kind.values,
    },
  ];
});

export const SPEC_ENUMS: readonly SpecEnum[] = [
  {
    where: 'components/schemas/Notice/properties/code',
    path: ['components', 'schemas', 'Notice', 'properties', 'code'],
    values: () => NOTICE_CODES,
  },
  {
    where: 'components/schemas/Report/properties/behaviours/items/properties/group',
    path: ['components', 'schemas', 'Report', 'properties', 'behaviours', 'items', 'properties', 'group'],
    values: () => [...new Set(BEHAVIOURS.map((b) => b.group))],
  },
  {
    where: 'components/schemas/RateLimitInput/properties/per',
    path: ['components', 'schemas', 'RateLimitInput', 'properties', 'per'],
    values: () => RATE_LIMIT_SCOPES,
  },
  {
    where: 'paths//__admin/report/get/parameters/format',
    path: ['paths', '/__admin/report', 'get', 'parameters', { name: 'format' }, 'schema'],
    values: () => REPORT_FORMATS,
  },
  ...settingEnums,
];

/** The node a path leads to, or a message saying which step is missing. */
function nodeAt(root: Node | null, path: readonly Step[]): Node | string {
  let node: unknown = root;
  for (const step of path) {
    if (typeof step === 'string' && isMap(node)) node = node.get(step, true);
    else if (typeof step !== 'string' && isSeq(node))
      node = node.items.find((item) => isMap(item) && item.get('name') === step.name);
    else node = undefined;
    if (node === undefined) return `no ${typeof step === 'string' ? step : `item named ${step.name}`}`;
  }
  return node as Node;
}

const scalar = (value: string): string => (/^[A-Za-z_][\w.-]*$/.test(value) ? value : JSON.stringify(value));

/** The enum's values as YAML, in the style (flow or block, indent) the spec writes it. */
function render(values: readonly string[], flow: boolean, column: number): string {
  if (flow) return `[${values.map(scalar).join(', ')}]`;
  return values
    .map(scalar)
    .join(`\n${' '.repeat(column)}- `)
    .replace(/^/, '- ');
}

/** The spec's text with every catalogue enum written afresh; throws naming an enum it cannot find. */
export function withSpecEnums(text: string): string {
  const document = parseDocument(text);
  const edits: Array<{ start: number; end: number; replacement: string }> = [];
  for (const specEnum of SPEC_ENUMS) {
    const schema = nodeAt(document.contents, specEnum.path);
    const list = typeof schema === 'string' || !isMap(schema) ? undefined : schema.get('enum', true);
    if (!isSeq(list) || !list.range)
      throw new Error(`spec/openapi.yaml: ${specEnum.where} has no enum (${String(schema)})`);
    const [start, end] = list.range;
    const column = start - (text.lastIndexOf('\n', start - 1) + 1);
    // A block sequence's range takes in the line break after it: kept as it is.
    const trailing = /\s*$/.exec(text.slice(start, end))?.[0] ?? '';
    const replacement = `${render(specEnum.values(), list.flow === true, column)}${trailing}`;
    edits.push({ start, end, replacement });
  }
  let out = text;
  for (const edit of edits.sort((a, b) => b.start - a.start))
    out = `${out.slice(0, edit.start)}${edit.replacement}${out.slice(edit.end)}`;
  return out;
}
