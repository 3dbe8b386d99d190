import type { Settings } from '../config.js';
import type { ApiKey, Dataset, FixtureSet } from '../domain/types.js';
import type { ErrorBody } from '../errors.js';
import type {
  ExpectedViolationInput,
  ExpectedViolationView,
} from '../harness/controls/expected-violations.js';
import type { FaultInput, FaultView } from '../harness/controls/faults.js';
import type { RateLimitInput, RateLimitView } from '../harness/controls/rate-limits.js';
import type { ScenarioInput, ScenarioListing } from '../harness/controls/scenarios.js';
import type { Har } from '../harness/instance/har.js';
import type { Clock, Health } from '../harness/instance/instance-controls.js';
import type {
  JournalEntryView,
  JournalFilter,
  JournalPage,
  NoticeRecord,
  ViolationRecord,
} from '../harness/verdicts/journal.js';
import { judgeCheck, sinceLastCheck } from '../harness/verdicts/no-violations.js';
import type { Report, ReportFormat } from '../harness/verdicts/report.js';

/**
 * A typed client of a running fake's admin API (a container, `npm start`, another machine): what
 * a suite calls instead of hand-written `fetch`s. Each method is one `/__admin` call of
 * `spec/openapi.yaml` (tag `admin`), typed from its schemas; every refusal is an `AdminError`
 * carrying the vendor-shaped body the fake answered.
 */

/** An admin call the fake refused: its HTTP status and the error body it answered. */
export class AdminError extends Error {
  readonly status: number;
  readonly body: ErrorBody | undefined;

  constructor(method: string, path: string, status: number, body: ErrorBody | undefined) {
    super(`${method} ${path} answered ${status}${body?.message ? `: ${body.message}` : ''}`);
    this.name = 'AdminError';
    this.status = status;
    this.body = body;
  }
}

export type { Clock, Har, Health };

export interface AdminClientOptions {
  /** The fake's `ADMIN_TOKEN`, when it was started with one. */
  adminToken?: string;
  /** Another `fetch` (tests, proxies); the global one by default. */
  fetch?: typeof fetch;
}

export interface SessionInfo {
  id: string;
  baseUrl: string;
  createdAt?: string;
  lastUsedAt?: string;
  expires?: boolean;
  /** The IDs of the session's own API keys, when it was created with `keys: 'own'` (never their secrets). */
  ownKeyIds?: string[];
  /** The run label it was created with. */
  run?: string;
  /** The tenant that created and owns it (`--tenants`); absent for the operator's sessions. */
  owner?: string;
}

/** The live sessions of every replica that answered, and the replicas that did not (`sessions({ partial })`). */
export interface SessionList {
  sessions: SessionInfo[];
  /** Whether a replica of the fleet did not answer. */
  partial: boolean;
  /** The ordinals of the replicas that did not answer. */
  missing: number[];
}

/** The journal's filters and page (`GET /__admin/requests`). */
export type RequestsQuery = JournalFilter & JournalPage;

export interface AdminClient {
  /** Where the fake (or the session) is served. */
  readonly baseUrl: string;
  health(): Promise<Health>;
  /**
   * Drains the fleet replica at this URL (POST /__admin/fleet/drain): it creates no more
   * sessions (503 `replicaDraining`) and keeps serving its own. 409 `notInFleet` outside a fleet.
   */
  drain(): Promise<{ ordinal: number; draining: true }>;
  reset(): Promise<void>;
  /** Replaces the state with a fixture set, which becomes the reset point; answers its documents' count. */
  load(fixtures: FixtureSet): Promise<number>;
  state(): Promise<Dataset>;
  /** One page of the journal and how many entries match. */
  requests(query?: RequestsQuery): Promise<{ count: number; requests: JournalEntryView[] }>;
  /** One journaled request, whole. */
  request(id: number): Promise<JournalEntryView>;
  clearRequests(): Promise<void>;
  violations(): Promise<ViolationRecord[]>;
  notices(): Promise<NoticeRecord[]>;
  /**
   * Throws `ContractViolationError`, listing every violation (request, location, message), when
   * the journal holds any the test did not declare, and every declared violation that never
   * came. Run it in `afterEach`, before the next `reset()` clears the journal.
   */
  expectNoViolations(): Promise<void>;
  /**
   * Declares a violation the test is about to provoke (method, path, location, each optional;
   * `times` default 1); answers its id.
   */
  expectViolation(expectation?: ExpectedViolationInput): Promise<string>;
  /** The declarations, with how many violating requests each met. */
  expectedViolations(): Promise<ExpectedViolationView[]>;
  /** Withdraws every declaration. */
  clearExpectedViolations(): Promise<void>;
  /** Withdraws one declaration. */
  removeExpectedViolation(id: string): Promise<void>;
  /**
   * The verdict of this fake or session for CI (`GET /__admin/report`): the report object, or the
   * text of `junit`, `ctrf` or `markdown` (docs/reports.md).
   */
  report(): Promise<Report>;
  report(format: Exclude<ReportFormat, 'json'>): Promise<string>;
  /**
   * The report of a run's sessions together, deleted ones included (at the root URL). With
   * `--tenants`, `tenant` names whose run it is (the operator's token; a tenant's reads its own).
   */
  report(query: { run: string; tenant?: string; format?: 'json'; partial?: '1' }): Promise<Report>;
  report(query: {
    run: string;
    tenant?: string;
    format: Exclude<ReportFormat, 'json'>;
    partial?: '1';
  }): Promise<string>;
  /**
   * The journal as an HTTP Archive (`GET /__admin/har`, HAR 1.2): for a browser's devtools,
   * Playwright's `routeFromHAR` or MSW; credentials redacted, findings in each entry's `_passportal`.
   */
  har(): Promise<Har>;
  /** Forgets what the report holds (`DELETE /__admin/report`); with `run` (and `tenant`), that run's report. */
  clearReport(query?: { run: string; tenant?: string }): Promise<void>;
  /** Adds a fault; answers its id. */
  addFault(fault: FaultInput): Promise<string>;
  faults(): Promise<FaultView[]>;
  removeFault(id: string): Promise<void>;
  clearFaults(): Promise<void>;
  /** Adds a rate limit (429 with Retry-After past it); answers its id. */
  addRateLimit(limit: RateLimitInput): Promise<string>;
  rateLimits(): Promise<RateLimitView[]>;
  removeRateLimit(id: string): Promise<void>;
  clearRateLimits(): Promise<void>;
  /** The scenario catalogue and the scenarios applied. */
  scenarios(): Promise<ScenarioListing>;
  /** Applies a built-in scenario `{name, ...parameters}` or your own `{name, steps}`; answers its id. */
  applyScenario(scenario: ScenarioInput): Promise<string>;
  /** Removes applied scenarios and what they installed. */
  clearScenarios(): Promise<void>;
  clock(): Promise<Clock>;
  advanceClock(seconds: number): Promise<Clock>;
  setClock(unixSeconds: number): Promise<Clock>;
  /** Invalidates every token issued so far; answers how many were still usable. */
  revokeTokens(): Promise<number>;
  /** The run-time settings, after applying `changes`. */
  settings(changes?: Partial<Settings>): Promise<Settings>;
  /**
   * A new session; `admin` is this client for its URL. With `keys: 'own'` it answers the
   * session's own API keys with their secrets (`keys`), which reach the session at the root URL.
   */
  createSession(input?: {
    fixtures?: FixtureSet;
    expires?: boolean;
    keys?: 'fixtures' | 'own';
    /** A run label: the root's `report({ run })` reports the run's sessions together. */
    run?: string;
  }): Promise<SessionInfo & { keys?: ApiKey[]; admin: AdminClient }>;
  sessions(): Promise<SessionInfo[]>;
  /**
   * In a fleet with a replica down: the sessions of the replicas that answer, and which are
   * missing (`partial: true`, `missing` their ordinals), rather than the 503 naming it.
   */
  sessions(query: { partial: '1' | 'true' }): Promise<SessionList>;
  deleteSession(id: string): Promise<void>;
}

function queryString(query: Record<string, unknown> | undefined): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined) params.set(key, String(value));
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** An admin call's answer as it came: status, media type (without parameters) and text. */
export interface AdminAnswer {
  status: number;
  mediaType: string;
  text: string;
}

/** One admin call: `method` and the path under `/__admin` (with its query string), a JSON body. */
export type AdminCall = (method: string, path: string, body?: unknown) => Promise<AdminAnswer>;

/**
 * The one way every client of this module reaches the admin API of the fake (or session) at
 * `baseUrl`: the typed client's methods below, and the MCP server's tools (src/mcp), which call
 * any admin operation of the spec by its method and path. Answers whatever status came back.
 */
export function createAdminCall(baseUrl: string, options: AdminClientOptions = {}): AdminCall {
  const base = baseUrl.replace(/\/+$/, '');
  const doFetch = options.fetch ?? fetch;
  return async (method, path, body) => {
    const headers: Record<string, string> = {};
    if (options.adminToken) headers.authorization = `Bearer ${options.adminToken}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await doFetch(`${base}/__admin${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const mediaType = (res.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    return { status: res.status, mediaType, text: await res.text() };
  };
}

/** A client of the admin API of the fake (or session) at `baseUrl`, e.g. `http://127.0.0.1:4010`. */
export function createAdminClient(baseUrl: string, options: AdminClientOptions = {}): AdminClient {
  const base = baseUrl.replace(/\/+$/, '');
  const send = createAdminCall(base, options);
  /** What `expectNoViolations` keys its previous check by: this client. */
  const checkedAt = {};

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const text = await callText(method, path, body);
    try {
      return (text === '' ? undefined : JSON.parse(text)) as T;
    } catch {
      // Not the fake's answer (a proxy's page, say).
      throw new Error(`${method} /__admin${path} answered with text that is not JSON`);
    }
  }

  /** The answer's text; an error answer throws `AdminError` with its body. */
  async function callText(method: string, path: string, body?: unknown): Promise<string> {
    const { status, text } = await send(method, path, body);
    if (status < 200 || status > 299) {
      let parsed: unknown;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        // Not the fake's answer (a proxy's error page, say): the status still tells.
      }
      throw new AdminError(method, `/__admin${path}`, status, parsed as ErrorBody | undefined);
    }
    return text;
  }

  return {
    baseUrl: base,
    health: () => call('GET', '/health'),
    drain: () => call('POST', '/fleet/drain'),
    reset: async () => void (await call('POST', '/reset')),
    load: async (fixtures) => (await call<{ documents: number }>('PUT', '/fixtures', fixtures)).documents,
    state: () => call('GET', '/state'),
    requests: (query) => call('GET', `/requests${queryString(query as Record<string, unknown>)}`),
    request: (id) => call('GET', `/requests/${id}`),
    clearRequests: async () => void (await call('DELETE', '/requests')),
    violations: async () => (await call<{ violations: ViolationRecord[] }>('GET', '/violations')).violations,
    notices: async () => (await call<{ notices: NoticeRecord[] }>('GET', '/notices')).notices,
    expectNoViolations: async () => {
      const { violations, unmetExpectations } = await call<{
        violations: ViolationRecord[];
        unmetExpectations?: ExpectedViolationView[];
      }>('GET', '/violations');
      // The report's exact counts since this client's previous check: a reset hides nothing.
      const hidden = sinceLastCheck(checkedAt, await call<Report>('GET', '/report'));
      judgeCheck(violations, base, unmetExpectations ?? [], hidden);
    },
    expectViolation: async (expectation = {}) =>
      (await call<{ id: string }>('POST', '/expected-violations', expectation)).id,
    expectedViolations: async () =>
      (await call<{ expectedViolations: ExpectedViolationView[] }>('GET', '/expected-violations'))
        .expectedViolations,
    clearExpectedViolations: async () => void (await call('DELETE', '/expected-violations')),
    removeExpectedViolation: async (id) =>
      void (await call('DELETE', `/expected-violations/${encodeURIComponent(id)}`)),
    report: ((
      query?: ReportFormat | { run: string; tenant?: string; format?: ReportFormat; partial?: '1' },
    ) => {
      const { format, run, tenant, partial } =
        typeof query === 'object'
          ? query
          : { format: query, run: undefined, tenant: undefined, partial: undefined };
      const search = queryString({ run, tenant, format: format === 'json' ? undefined : format, partial });
      return format === undefined || format === 'json'
        ? call<Report>('GET', `/report${search}`)
        : callText('GET', `/report${search}`);
    }) as AdminClient['report'],
    har: () => call('GET', '/har'),
    clearReport: async (query) => void (await call('DELETE', `/report${queryString(query)}`)),
    addFault: async (fault) => (await call<{ id: string }>('POST', '/faults', fault)).id,
    faults: async () => (await call<{ faults: FaultView[] }>('GET', '/faults')).faults,
    removeFault: async (id) => void (await call('DELETE', `/faults/${encodeURIComponent(id)}`)),
    clearFaults: async () => void (await call('DELETE', '/faults')),
    addRateLimit: async (limit) => (await call<{ id: string }>('POST', '/rate-limits', limit)).id,
    rateLimits: async () => (await call<{ rateLimits: RateLimitView[] }>('GET', '/rate-limits')).rateLimits,
    removeRateLimit: async (id) => void (await call('DELETE', `/rate-limits/${encodeURIComponent(id)}`)),
    clearRateLimits: async () => void (await call('DELETE', '/rate-limits')),
    scenarios: () => call('GET', '/scenarios'),
    applyScenario: async (scenario) => (await call<{ id: string }>('POST', '/scenarios', scenario)).id,
    clearScenarios: async () => void (await call('DELETE', '/scenarios')),
    clock: () => call('GET', '/clock'),
    advanceClock: (seconds) => call('POST', '/clock', { advanceSeconds: seconds }),
    setClock: (unixSeconds) => call('POST', '/clock', { now: unixSeconds }),
    revokeTokens: async () => (await call<{ revoked: number }>('POST', '/tokens/revoke')).revoked,
    settings: (changes) =>
      changes === undefined ? call('GET', '/settings') : call('PUT', '/settings', changes),
    createSession: async (input = {}) => {
      const created = await call<SessionInfo & { keys?: ApiKey[] }>('POST', '/sessions', input);
      return { ...created, admin: createAdminClient(created.baseUrl, options) };
    },
    sessions: (async (query?: { partial: '1' | 'true' }) => {
      const list = await call<SessionList>('GET', `/sessions${queryString(query)}`);
      return query === undefined ? list.sessions : list;
    }) as AdminClient['sessions'],
    deleteSession: async (id) => void (await call('DELETE', `/sessions/${encodeURIComponent(id)}`)),
  };
}
