import type { OpenApiDocument } from '../../src/contract/spec-document.js';

/** An object schema of the spec's components, as an edit sees it. */
export interface ObjectSchema {
  properties: Record<string, Record<string, unknown>>;
  required: string[];
}

/**
 * A copy of the spec with `edit` applied to one of its components' object schemas (`required`
 * present, empty when the spec has none): the changes a spec edit makes, for the helpers' parity
 * tests to prove they catch them.
 */
export function editedSchema(
  document: OpenApiDocument,
  name: string,
  edit: (schema: ObjectSchema) => void,
): OpenApiDocument {
  const copy = structuredClone(document) as OpenApiDocument;
  const schema = copy.components?.schemas?.[name] as ObjectSchema | undefined;
  if (schema === undefined) throw new Error(`the spec has no schema ${name}`);
  schema.required ??= [];
  edit(schema);
  return copy;
}
