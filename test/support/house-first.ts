import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The checks that every place of a change was made run before all other test files: generated
 * files current (spec enums, operation ids, docs tables), handler tables and `ListQuery` held to
 * the spec, the layers and folder tables, the admin powers in every language, the fields of the
 * TypeScript client, the Python client and the PowerShell commands (and the helpers' bounds). Each
 * takes seconds, so a missed place fails within the first minute of `npm test`, not after the
 * slow suites.
 */
export const HOUSE_CHECKS = [
  'test/generated-files.test.ts',
  'test/spec-operation-ids.test.ts',
  'test/architecture.test.ts',
  'test/rooms.test.ts',
  'test/map.test.ts',
  'test/admin-parity.test.ts',
  'test/clients/helpers-parity.test.ts',
  'test/clients/python-fields.test.ts',
  'test/clients/powershell-fields.test.ts',
  'test/clients/typescript-fields.test.ts',
];

export default class HouseFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification): number => {
      const at = HOUSE_CHECKS.findIndex((file) => spec.moduleId.endsWith(`/${file}`));
      return at < 0 ? HOUSE_CHECKS.length : at;
    };
    // A stable sort: the house checks first, in their order; the rest as vitest orders them.
    return sorted
      .map((spec, index) => ({ spec, index }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.index - b.index)
      .map(({ spec }) => spec);
  }
}
