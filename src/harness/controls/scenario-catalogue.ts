import { ApiError, type Violation } from '../../errors.js';

/**
 * The built-in scenarios: one place for each one's name, what it does, the client bug it
 * catches and its parameters (a JSON Schema, each parameter with its default). `GET
 * /__admin/scenarios` answers this list and docs/trouble.md shows it as a generated table
 * (`npm run docs:tables`); `scenarios.ts` plays them.
 */

interface NumberParameter {
  type: 'integer' | 'number';
  minimum: number;
  maximum: number;
  default?: number;
  description: string;
}

export interface ScenarioDefinition {
  name: string;
  description: string;
  catches: string;
  parameters: {
    type: 'object';
    additionalProperties: false;
    properties: Record<string, NumberParameter>;
  };
}

const params = (properties: Record<string, NumberParameter>): ScenarioDefinition['parameters'] => ({
  type: 'object',
  additionalProperties: false,
  properties,
});

export const SCENARIOS: readonly ScenarioDefinition[] = [
  {
    name: 'token-expires-mid-crawl',
    description:
      'The first access token to make afterRequests successful list requests (listDocuments, listAllDocuments, listClients) expires right after the last of them: its next request is answered 401 code 1006 "Invalid token: token expired"; a new token works. Once per application.',
    catches:
      'a crawler that caches its token and stops, or retries with the dead token, instead of getting a new one',
    parameters: params({
      afterRequests: {
        type: 'integer',
        minimum: 1,
        maximum: 1_000_000,
        default: 3,
        description: 'successful list requests the token makes before it expires',
      },
    }),
  },
  {
    name: 'throttled',
    description:
      'A rate limit per API key: past limit API requests in windowSeconds, a request is answered 429 with Retry-After (as POST /__admin/rate-limits {"per":"key"}).',
    catches: 'a client with no back-off: it fails the job, or hammers the service, on the first 429',
    parameters: params({
      limit: {
        type: 'integer',
        minimum: 1,
        maximum: 1_000_000,
        default: 5,
        description: 'requests per window',
      },
      windowSeconds: {
        type: 'integer',
        minimum: 1,
        maximum: 86_400,
        default: 10,
        description: 'the window, in seconds of the fake’s clock',
      },
    }),
  },
  {
    name: 'flaky',
    description:
      'API requests fail with a 5xx by chance, the same requests in every run for the same seed (a fault on /api/* with probability and seed).',
    catches: 'a client that never retries a 5xx, or retries a write it cannot repeat safely',
    parameters: params({
      probability: {
        type: 'number',
        minimum: 0,
        maximum: 1,
        default: 0.3,
        description: 'the chance that a request fails',
      },
      seed: {
        type: 'integer',
        minimum: 0,
        maximum: 4_294_967_295,
        default: 1,
        description: 'the same seed fails the same requests',
      },
      status: {
        type: 'integer',
        minimum: 500,
        maximum: 599,
        default: 503,
        description: 'the status answered',
      },
    }),
  },
  {
    name: 'changed-under-you',
    description:
      'A document the client read (GET /api/v2/documents/{id}) is changed by another user before the client’s next PATCH of it: its label gains " (changed by another user)" and its first text detail the same suffix, with a new last_modified. The service has no ETag or If-Match: the PATCH succeeds and replaces the details, so the other user’s detail change is lost silently (the label change stays); journaled as documentChangedUnderYou.',
    catches: 'a read-modify-write client that assumes nobody else edits between its read and its write',
    parameters: params({}),
  },
];

const BY_NAME = new Map(SCENARIOS.map((s) => [s.name, s]));

export function scenarioOf(name: string): ScenarioDefinition | undefined {
  return BY_NAME.get(name);
}

/**
 * A built-in scenario's parameters, checked against its schema, defaults filled in; throws
 * `invalidBody` naming every parameter wrong (`body/limit`).
 */
export function parametersOf(
  definition: ScenarioDefinition,
  input: Record<string, unknown>,
  location: string,
): Record<string, number> {
  const problems: Violation[] = [];
  const values: Record<string, number> = {};
  const { properties } = definition.parameters;
  for (const key of Object.keys(input)) {
    if (key === 'name') continue;
    if (!Object.hasOwn(properties, key))
      problems.push({
        location: `${location}/${key}`,
        message: `is not a parameter of ${definition.name} (${Object.keys(properties).join(', ') || 'it takes none'})`,
      });
  }
  for (const [key, schema] of Object.entries(properties)) {
    const value = input[key] ?? schema.default;
    const ok =
      typeof value === 'number' &&
      Number.isFinite(value) &&
      (schema.type === 'number' || Number.isSafeInteger(value)) &&
      value >= schema.minimum &&
      value <= schema.maximum;
    if (ok) values[key] = value;
    else
      problems.push({
        location: `${location}/${key}`,
        message: `must be ${schema.type === 'integer' ? 'an integer' : 'a number'} from ${schema.minimum} to ${schema.maximum}`,
      });
  }
  const [first] = problems;
  if (first)
    throw new ApiError('invalidBody', `invalid scenario: ${first.location} ${first.message}`, problems);
  return values;
}
