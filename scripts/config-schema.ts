/**
 * The JSON Schema of the config file, made from the option declarations (src/config.ts), so the
 * two never drift. `npm run generate` writes it to spec/config.schema.json, formatted as the
 * linter formats JSON; test/generated-files.test.ts checks that file is current.
 */
import { OPTION_SPECS } from '../src/config.js';
import type { Kind } from '../src/options/declare.js';

function schemaOf(kind: Kind): Record<string, unknown> {
  switch (kind.type) {
    case 'integer':
      return { type: 'integer', minimum: kind.min, maximum: kind.max };
    case 'enum':
      return { type: 'string', enum: [...kind.values] };
    case 'boolean':
      return { type: 'boolean' };
    case 'string':
      return { type: 'string', minLength: 1 };
  }
}

/** The schema shipped as `spec/config.schema.json`: one property per option, nothing else. */
export function configSchema(): Record<string, unknown> {
  const properties: Record<string, unknown> = { $schema: { type: 'string' } };
  for (const spec of OPTION_SPECS) {
    const schema = schemaOf(spec.kind);
    schema.description = `${spec.description} (flag ${spec.flag}, env ${spec.env})`;
    if (spec.default !== undefined) schema.default = spec.default;
    properties[spec.key] = schema;
  }
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://passportal-docs-fake.local/config.schema.json',
    title: 'passportal-docs-fake configuration file',
    description:
      'The options of the fake (passportal-fake.config.json); flags and environment variables win over it. Made from src/config.ts by scripts/config-schema.ts.',
    type: 'object',
    additionalProperties: false,
    properties,
  };
}
