// Made by scripts/operation-ids.ts from spec/openapi.yaml; do not edit (npm run generate).

/** Vendor operations the fake answers with a handler of its own (http/handlers/vendor-handlers.ts). */
export const VENDOR_OPERATION_IDS = [
  'createClientToken',
  'listDocuments',
  'replaceDocuments',
  'createDocuments',
  'patchDocuments',
  'listAllDocuments',
  'listClients',
  'getSwaggerDocument',
  'getDocument',
  'patchDocument',
] as const;

/** Vendor operations the spec marks `x-answered-from-example`: prism-http's mocker answers them. */
export const EXAMPLE_OPERATION_IDS = [] as const;

/** Admin operations (tag `admin`), each answered by http/handlers/admin-handlers.ts. */
export const ADMIN_OPERATION_IDS = [
  'getHealth',
  'drainReplica',
  'resetState',
  'loadFixtures',
  'getState',
  'listRequests',
  'clearRequests',
  'getRequest',
  'listViolations',
  'listNotices',
  'getReport',
  'clearReport',
  'getHar',
  'listExpectedViolations',
  'createExpectedViolation',
  'clearExpectedViolations',
  'deleteExpectedViolation',
  'listFaults',
  'createFault',
  'clearFaults',
  'deleteFault',
  'listRateLimits',
  'createRateLimit',
  'clearRateLimits',
  'deleteRateLimit',
  'listScenarios',
  'applyScenario',
  'clearScenarios',
  'getClock',
  'setClock',
  'revokeTokens',
  'getSettings',
  'updateSettings',
  'listSessions',
  'createSession',
  'deleteSession',
] as const;

export type VendorOperationId = (typeof VENDOR_OPERATION_IDS)[number];
export type ExampleOperationId = (typeof EXAMPLE_OPERATION_IDS)[number];
export type AdminOperationId = (typeof ADMIN_OPERATION_IDS)[number];

/** The query parameters of `listDocuments` in the spec. */
export type ListDocumentsQueryParameter =
  | 'resultsPerPage'
  | 'pageNum'
  | 'orderBy'
  | 'orderDir'
  | 'type'
  | 'templateUid'
  | 'clientId'
  | 'searchTxt';

/** The query parameters of `listAllDocuments` in the spec. */
export type ListAllDocumentsQueryParameter =
  | 'resultsPerPage'
  | 'pageNum'
  | 'orderBy'
  | 'orderDir'
  | 'type'
  | 'templateUid'
  | 'clientId'
  | 'searchTxt';
