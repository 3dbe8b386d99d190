/**
 * Writes src/contract/operation-ids.ts from spec/openapi.yaml: the operation ids of the vendor API
 * and of the admin API, and the query parameters of the list operations, as TypeScript types. The
 * handler tables are typed over these ids, so an operation added to the spec without a handler, or
 * a handler under a misspelt id, fails the compiler. `npm run generate` writes the file;
 * test/generated-files.test.ts fails first when the spec changed and it was not made again.
 */
import { listOperations } from '../src/contract/operations.js';
import type { OpenApiDocument } from '../src/contract/spec-document.js';

const ADMIN_TAG = 'admin';
/** Operations whose rows are the documents list's: their query parameters are `ListQuery`'s. */
const LIST_OPERATIONS = ['listDocuments', 'listAllDocuments'];

// Written as the formatter writes them, so the file passes the linter as made.
const list = (names: string[]): string =>
  names.length ? `[\n${names.map((n) => `  '${n}',`).join('\n')}\n]` : '[]';
const union = (names: string[]): string =>
  names.length ? `\n${names.map((n) => `  | '${n}'`).join('\n')}` : ' never';

/** The generated module's text for a spec. */
export function operationIdsModule(document: OpenApiDocument): string {
  const operations = listOperations(document);
  const vendor: string[] = [];
  const fromExample: string[] = [];
  const admin: string[] = [];
  for (const op of operations) {
    if (op.tags.includes(ADMIN_TAG)) admin.push(op.operationId);
    else if (op.raw['x-answered-from-example'] === true) fromExample.push(op.operationId);
    else vendor.push(op.operationId);
  }
  const listTypes = LIST_OPERATIONS.map((id) => {
    const op = operations.find((o) => o.operationId === id);
    const names = (op?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
    const name = `${id.charAt(0).toUpperCase()}${id.slice(1)}QueryParameter`;
    return `/** The query parameters of \`${id}\` in the spec. */\nexport type ${name} =${union(names)};`;
  }).join('\n\n');
  return `// Made by scripts/operation-ids.ts from spec/openapi.yaml; do not edit (npm run generate).

/** Vendor operations the fake answers with a handler of its own (http/handlers/vendor-handlers.ts). */
export const VENDOR_OPERATION_IDS = ${list(vendor)} as const;

/** Vendor operations the spec marks \`x-answered-from-example\`: prism-http's mocker answers them. */
export const EXAMPLE_OPERATION_IDS = ${list(fromExample)} as const;

/** Admin operations (tag \`admin\`), each answered by http/handlers/admin-handlers.ts. */
export const ADMIN_OPERATION_IDS = ${list(admin)} as const;

export type VendorOperationId = (typeof VENDOR_OPERATION_IDS)[number];
export type ExampleOperationId = (typeof EXAMPLE_OPERATION_IDS)[number];
export type AdminOperationId = (typeof ADMIN_OPERATION_IDS)[number];

${listTypes}
`;
}
