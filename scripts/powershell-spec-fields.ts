/**
 * Writes clients/powershell/PassportalFake/Private/spec-fields.psd1 from spec/openapi.yaml's admin
 * operations (tag `admin`) that name PowerShell commands (`x-powershell`): for each, the commands
 * and every field the operation takes (path, query, body) with its JSON type, whether it is
 * required, and the bounds the spec gives it (minimum, maximum, minLength, maxLength, enum).
 *
 * The module reads it (Private/spec-fields.ps1) to check the fields a command takes as a
 * hashtable (Set-PassportalFakeSetting); test/clients/powershell-fields.test.ts holds every
 * command's parameters and their `[Validate*]` attributes to it. `npm run generate` writes it;
 * test/generated-files.test.ts fails when it is stale.
 */
import type { OpenApiDocument } from '../src/contract/spec-document.js';
import { adminOperations, type RequestField, requestShapes } from './python-spec-types.js';

export const POWERSHELL_SPEC_FIELDS_FILE = 'clients/powershell/PassportalFake/Private/spec-fields.psd1';

/** What an admin operation named by PowerShell commands takes. */
export interface PowerShellOperation {
  operationId: string;
  method: string;
  path: string;
  /** `x-powershell`: the commands that call it. */
  commands: string[];
  fields: RequestField[];
  wholeBody: boolean;
  openBody: boolean;
}

export function powershellOperations(document: OpenApiDocument): PowerShellOperation[] {
  const operations = new Map(adminOperations(document).map((op) => [op.operationId, op]));
  return requestShapes(document).flatMap((shape) => {
    const op = operations.get(shape.operationId);
    const commands = op?.raw['x-powershell'];
    if (op === undefined || !Array.isArray(commands) || commands.length === 0) return [];
    return [
      {
        operationId: shape.operationId,
        method: op.method.toUpperCase(),
        path: op.path,
        commands: commands.map(String),
        fields: shape.fields,
        wholeBody: shape.wholeBody,
        openBody: shape.openBody,
      },
    ];
  });
}

const psString = (value: string): string => `'${value.replace(/'/g, "''")}'`;
const psValue = (value: unknown): string => {
  if (typeof value === 'string') return psString(value);
  if (typeof value === 'boolean') return value ? '$true' : '$false';
  if (value === null) return '$null';
  return String(value);
};

function fieldLine(field: RequestField): string {
  const parts = [
    `Name = ${psString(field.name)}`,
    `In = ${psString(field.where)}`,
    `Type = ${psString(field.type)}`,
    `Required = ${psValue(field.required)}`,
  ];
  const { minimum, maximum, minLength, maxLength } = field.bounds;
  if (minimum !== undefined) parts.push(`Minimum = ${minimum}`);
  if (maximum !== undefined) parts.push(`Maximum = ${maximum}`);
  if (minLength !== undefined) parts.push(`MinLength = ${minLength}`);
  if (maxLength !== undefined) parts.push(`MaxLength = ${maxLength}`);
  if (field.bounds.enum) parts.push(`Enum = @(${field.bounds.enum.map(psValue).join(', ')})`);
  return `            @{ ${parts.join('; ')} }`;
}

/** The generated data file's text for a spec. */
export function powershellSpecFieldsData(document: OpenApiDocument): string {
  const entries = powershellOperations(document).map((op) => {
    const fields = op.fields.length === 0 ? '@()' : `@(\n${op.fields.map(fieldLine).join('\n')}\n        )`;
    return [
      `    ${op.operationId} = @{`,
      `        Method = ${psString(op.method)}`,
      `        Path = ${psString(op.path)}`,
      `        Commands = @(${op.commands.map(psString).join(', ')})`,
      `        WholeBody = ${psValue(op.wholeBody)}`,
      `        OpenBody = ${psValue(op.openBody)}`,
      `        Fields = ${fields}`,
      '    }',
    ].join('\n');
  });
  return `# Made by scripts/powershell-spec-fields.ts from spec/openapi.yaml; do not edit (npm run generate).
# Per admin operation: the commands that call it and every field it takes, with the JSON type,
# whether the spec requires it and the bounds the spec gives it.
@{
${entries.join('\n')}
}
`;
}
