import type { Violation } from '../errors.js';
import { loadPrismOperations } from './prism-operations.js';
import type { OpenApiDocument } from './spec-document.js';

/**
 * Checks one response against the operation it answers, with @stoplight/prism-http's output
 * validator (the library client teams run through Prism). Returns the contract violations; an
 * empty array means the response conforms. Locations read `response.status`,
 * `response.header.content-type` or `response.body/results/0/label`.
 */
export type ResponseChecker = (input: {
  operationId: string;
  status: number;
  headers: Record<string, string>;
  body: unknown;
}) => Violation[];

interface PrismDiagnostic {
  path?: Array<string | number>;
  message: string;
  code?: string | number;
  severity?: number;
}

type ValidateOutput = (input: {
  resource: unknown;
  element: { statusCode: number; headers: Record<string, string>; body: unknown };
}) => { _tag: 'Left'; left: PrismDiagnostic[] } | { _tag: 'Right' };

function locationOf(diagnostic: PrismDiagnostic): string {
  const path = [...(diagnostic.path ?? [])];
  // prism reports a missing or extra property at its parent; name the property itself.
  const named = /(?:required property|found) '([^']*)'/.exec(diagnostic.message);
  if (
    named?.[1] !== undefined &&
    (diagnostic.code === 'required' || diagnostic.code === 'additionalProperties')
  )
    path.push(named[1].replaceAll('~', '~0').replaceAll('/', '~1'));
  if (path.length > 0) {
    const [head, ...rest] = path.map(String);
    if (head === 'body') return ['response.body', ...rest].join('/');
    return `response.${[head, ...rest].join('.')}`;
  }
  if (/status code/i.test(diagnostic.message)) return 'response.status';
  if (/media type/i.test(diagnostic.message)) return 'response.header.content-type';
  return 'response';
}

/**
 * Builds a checker over one spec. prism-http is loaded here, on first use, never at module top
 * level: the server's start-up path must not pay for it.
 */
export async function createResponseChecker(document: OpenApiDocument): Promise<ResponseChecker> {
  const [byId, validator] = await Promise.all([
    loadPrismOperations(document),
    import('@stoplight/prism-http/dist/validator/index.js'),
  ]);
  const validateOutput = validator.validateOutput as unknown as ValidateOutput;

  return ({ operationId, status, headers, body }) => {
    const resource = byId.get(operationId);
    if (!resource) {
      return [{ location: 'response', message: `operation ${operationId} is not in the spec` }];
    }
    let result: ReturnType<ValidateOutput>;
    try {
      result = validateOutput({ resource, element: { statusCode: status, headers, body } });
    } catch (error) {
      return [{ location: 'response', message: `response could not be validated: ${String(error)}` }];
    }
    if (result._tag !== 'Left') return [];
    return result.left.map((diagnostic) => ({
      location: locationOf(diagnostic),
      message: diagnostic.code ? `${diagnostic.message} (${String(diagnostic.code)})` : diagnostic.message,
    }));
  };
}
