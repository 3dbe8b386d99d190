import { FixtureError } from '../../domain/fixtures/fixture-error.js';
import { buildDataset } from '../../domain/fixtures/load-fixtures.js';
import type { Dataset } from '../../domain/types.js';
import { ApiError, capViolations } from '../../errors.js';
import { serialisable } from '../controls/serialisable.js';

/**
 * Validates a fixture set that arrived over HTTP (or from the programmatic API). A rejected set
 * is a 400 in the vendor's shape whose `errors` name every problem as `<file><json pointer>`,
 * e.g. `body/documents/3/client_id`; nothing is applied.
 *
 * @param file how problems name the set: `body`, `body/fixtures`, `fixtures`.
 * @param fresh the set was just parsed from JSON and is owned by the caller of this function only,
 *   so its entries need not be copied.
 */
export function datasetFromInput(raw: unknown, file: string, fresh = false): Dataset {
  assertSerialisable(raw, file);
  try {
    return buildDataset(raw, file, { fresh });
  } catch (error) {
    if (!(error instanceof FixtureError)) throw error;
    const count = error.problems.length;
    throw new ApiError(
      'invalidBody',
      `fixture set rejected: ${count} problem${count === 1 ? '' : 's'}`,
      capViolations(
        error.problems.map((p) => ({ location: `${p.file}${p.path}`, message: p.message })),
        undefined,
        file,
      ),
    );
  }
}

/**
 * JSON nested thousands of levels deep parses, but every later read of it (state dump, document
 * read) would overflow the serialiser: such a set is refused up front.
 */
function assertSerialisable(raw: unknown, file: string): void {
  if (!serialisable(raw)) {
    throw new ApiError('invalidBody', 'fixture set rejected: nested too deeply to serialise', [
      { location: file, message: 'is nested too deeply to serialise' },
    ]);
  }
}
