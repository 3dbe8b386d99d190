import type { Settings } from '../../config.js';
import type { OperationContext, OperationTable } from '../../contract/operation-handler.js';
import type { AdminOperationId } from '../../contract/operation-ids.js';
import { ApiError } from '../../errors.js';
import { drainReplica } from '../../fleet/drain.js';
import type { Fleet } from '../../fleet/fleet.js';
import type { ExpectedViolationInput } from '../../harness/controls/expected-violations.js';
import type { FaultInput } from '../../harness/controls/faults.js';
import { datasetFromInput } from '../../harness/instance/fixture-input.js';
import type { Instance } from '../../harness/instance/instance.js';
import { reportFor } from '../../harness/instance/instance-controls.js';
import type { ServerPowers, SessionOptions } from '../../harness/instance/server-powers.js';
import { sessionPath } from '../../harness/sessions/sessions.js';
import { type JournalFilter, type JournalPage, viewEntry } from '../../harness/verdicts/journal.js';
import type { ReportFormat } from '../../harness/verdicts/report.js';
import { reportMediaType } from '../../harness/verdicts/report-formats.js';
import { clearRunReport, type RunReports } from '../../harness/verdicts/run-reports.js';
import { notTenantsSession } from '../tenant-boundary.js';
import { type ControlsOf, done, removedOrNotFound } from './admin-answers.js';
import { createTroubleHandlers } from './trouble-handlers.js';

/** Entries in one page of `GET /__admin/requests` when `limit` is not given. */
const DEFAULT_REQUESTS_PAGE = 100;
/** In that listing, bodies and responses longer than this are shown as the start of their text. */
const LISTED_BODY_BYTES = 4096;

/**
 * The admin API: the fake's test-harness calls under /__admin, as HTTP adapters of the server's
 * powers (`harness/instance/server-powers.ts`), which the programmatic API adapts too. Each acts on the
 * instance the request was addressed to (the root, or the session under `/sessions/{id}`); the
 * session calls act on the server's sessions from either. Bodies and parameters are already
 * checked against the spec; every further check happens before anything changes.
 */

/** `http://host:port`: the request's base URL without the session prefix. */
function originOf(context: OperationContext<Instance>): string {
  const id = context.instance.id;
  return id === undefined ? context.baseUrl : context.baseUrl.slice(0, -sessionPath(id).length);
}

/**
 * The runs a report at the root with `run` reads: a tenant's token its own (never the
 * operator's or another tenant's of the same label); the operator's token the operator's, or a
 * tenant's named by `tenant`. Undefined for the server's own runs.
 */
function runsAsked(powers: ServerPowers, context: OperationContext<Instance>): RunReports | undefined {
  const { run, tenant: named } = context.request.query as { run?: string; tenant?: string };
  if (named !== undefined && run === undefined) {
    throw new ApiError('invalidParameter', 'tenant names whose run to report: give run too', [
      { location: 'query.tenant', message: 'needs run' },
    ]);
  }
  if (run === undefined || context.instance.id !== undefined) return undefined;
  const caller = context.tenant;
  if (caller !== undefined && named !== undefined && named !== caller) {
    throw new ApiError(
      'adminForbidden',
      `Forbidden: tenant "${caller}" reads and clears its own runs only (leave tenant out, or give tenant=${caller})`,
    );
  }
  const name = named ?? caller;
  if (name === undefined) return undefined;
  const space = powers.tenants?.get(name);
  if (space === undefined) {
    const known = powers.tenants?.list().map((t) => JSON.stringify(t.tenant.name)) ?? [];
    throw new ApiError(
      'invalidParameter',
      `no tenant named "${name}" (tenants: ${known.join(', ') || 'none'})`,
      [{ location: 'query.tenant', message: 'is not a tenant of the tenants file' }],
    );
  }
  return space.runs;
}

export function createAdminHandlers(
  powers: ServerPowers,
  /** A fleet replica (docs/fleet.md): its health block, its drain. */
  fleet?: Fleet,
): OperationTable<AdminOperationId, Instance> {
  const { sessions } = powers;
  /** What a `runNotFound` may name besides the runs asked: every tenant's runs to the operator only. */
  const otherRunLabels = (context: OperationContext<Instance>) => (): readonly string[] =>
    context.tenant !== undefined || context.request.query.tenant !== undefined
      ? []
      : (powers.tenants?.list() ?? []).flatMap((space) =>
          space.runs.labels().map((label) => `${space.tenant.name}/${label}`),
        );
  const controls: ControlsOf = (context) => powers.controls(context.instance);
  /** The calling tenant's (undefined for the operator). */
  const tenantOf = (context: OperationContext<Instance>) =>
    context.tenant === undefined ? undefined : powers.tenants?.get(context.tenant);
  return {
    ...createTroubleHandlers(controls),
    getHealth: async (context) => {
      const health = controls(context).health();
      // The root's answer in a fleet also says which replicas answer.
      if (fleet === undefined || context.instance.id !== undefined) return { status: 200, body: health };
      return { status: 200, body: { ...health, fleet: await fleet.health() } };
    },

    // This replica's own (never forwarded): it stops creating sessions.
    drainReplica: (context) => {
      // Outside a fleet, 409 wherever it is asked; in one, at the replica's root only.
      if (fleet !== undefined && context.instance.id !== undefined)
        throw new ApiError('adminForbidden', "Forbidden: a drain is the replica's; ask its root URL");
      return { status: 200, body: drainReplica(fleet) };
    },

    resetState: (context) => {
      controls(context).reset();
      return done;
    },

    loadFixtures: (context) => {
      // Over HTTP a set is the body, never a path on the server's disk.
      const dataset = datasetFromInput(context.request.body, 'body', true);
      context.instance.load(dataset);
      return { status: 200, body: { success: true, documents: dataset.documents.length } };
    },

    // At a million documents its text is longer than the longest string JavaScript can hold.
    getState: (context) => ({ status: 200, body: controls(context).state(), chunked: true }),

    listRequests: async (context) => {
      const { journal } = context.instance;
      await journal.settled();
      const q = context.request.query as JournalFilter & JournalPage;
      const { entries, count } = journal.page(q, {
        order: q.order,
        offset: q.offset ?? 0,
        limit: q.limit ?? DEFAULT_REQUESTS_PAGE,
      });
      return {
        status: 200,
        body: { count, requests: entries.map((e) => viewEntry(e, LISTED_BODY_BYTES)) },
      };
    },

    getRequest: async (context) => ({
      status: 200,
      body: await controls(context).request(Number(context.request.params.requestId)),
    }),

    clearRequests: (context) => {
      controls(context).clearRequests();
      return done;
    },

    listViolations: async (context) => ({
      status: 200,
      body: {
        violations: await controls(context).violations(),
        unmetExpectations: context.instance.expectations.unmet(),
      },
    }),

    listNotices: async (context) => ({ status: 200, body: { notices: await controls(context).notices() } }),

    getReport: async (context) => {
      const format = (context.request.query.format as ReportFormat | undefined) ?? 'json';
      const run = context.request.query.run as string | undefined;
      const runs = runsAsked(powers, context);
      const checks = {
        ...powers.checks,
        ...(runs === undefined ? {} : { runs }),
        otherRunLabels: otherRunLabels(context),
      };
      const report = await reportFor(context.instance, checks, { run, format });
      if (typeof report !== 'string') return { status: 200, body: report };
      // JUnit XML, CTRF JSON and Markdown are rendered once and sent as the text they are.
      return { status: 200, body: undefined, text: { text: report, mediaType: reportMediaType(format) } };
    },

    getHar: async (context) => ({ status: 200, body: await controls(context).har() }),

    clearReport: (context) => {
      const run = context.request.query.run as string | undefined;
      const runs = runsAsked(powers, context);
      if (runs !== undefined && run !== undefined) clearRunReport(runs, run);
      else if (
        run !== undefined &&
        context.instance.id === undefined &&
        context.tenant === undefined &&
        powers.checks.runs !== undefined
      )
        clearRunReport(powers.checks.runs, run, otherRunLabels(context)());
      else controls(context).clearReport(run === undefined ? undefined : { run });
      return done;
    },

    createExpectedViolation: (context) => ({
      status: 201,
      body: { id: controls(context).expectViolation((context.request.body ?? {}) as ExpectedViolationInput) },
    }),

    listExpectedViolations: (context) => ({
      status: 200,
      body: { expectedViolations: controls(context).expectedViolations() },
    }),

    clearExpectedViolations: (context) => {
      controls(context).clearExpectedViolations();
      return done;
    },

    deleteExpectedViolation: (context) => {
      const id = String(context.request.params.expectationId);
      return removedOrNotFound(controls(context).removeExpectedViolation(id), 'expected violation', id);
    },

    createFault: (context) => ({
      status: 201,
      body: { id: controls(context).addFault(context.request.body as FaultInput) },
    }),

    listFaults: (context) => ({ status: 200, body: { faults: controls(context).faults() } }),

    clearFaults: (context) => {
      controls(context).clearFaults();
      return done;
    },

    deleteFault: (context) => {
      const id = String(context.request.params.faultId);
      return removedOrNotFound(controls(context).removeFault(id), 'fault', id);
    },

    getClock: (context) => ({ status: 200, body: controls(context).clock() }),

    setClock: (context) => {
      const body = context.request.body as { advanceSeconds?: number; now?: number };
      const clock = controls(context);
      if (body.advanceSeconds !== undefined) clock.advanceClock(body.advanceSeconds);
      else if (body.now !== undefined) clock.setClock(body.now);
      return { status: 200, body: clock.clock() };
    },

    revokeTokens: (context) => ({
      status: 200,
      body: { success: true, revoked: controls(context).revokeTokens() },
    }),

    getSettings: (context) => ({ status: 200, body: controls(context).settings() }),

    updateSettings: (context) => ({
      status: 200,
      body: controls(context).settings(context.request.body as Partial<Settings>),
    }),

    createSession: async (context) => {
      if (context.instance.id !== undefined) {
        throw new ApiError(
          'adminForbidden',
          'Forbidden: a session manages itself only; create sessions from the root URL (/__admin/sessions)',
        );
      }
      const { fixtures, ...options } = (context.request.body ?? {}) as SessionOptions & {
        fixtures?: unknown;
      };
      const session = await powers.openSession(
        fixtures === undefined ? undefined : () => datasetFromInput(fixtures, 'body/fixtures', true),
        options,
        // A tenant's session is its own: within its quotas, its run label one of its runs.
        tenantOf(context),
      );
      const created = { id: session.id, baseUrl: `${originOf(context)}${sessionPath(session.id)}` };
      // The secrets are answered here (and in the session's state) only.
      const keys = session.instance.ownKeys?.list();
      return { status: 201, body: keys ? { ...created, keys } : created };
    },

    listSessions: (context) => {
      const origin = originOf(context);
      // From a session URL: that session only, never the others (nor their keys or journals);
      // a tenant sees its own sessions only.
      const own = context.instance.id;
      const tenant = context.tenant;
      return {
        status: 200,
        body: {
          sessions: sessions
            .list()
            .filter(
              (s) => (own === undefined || s.id === own) && (tenant === undefined || s.owner === tenant),
            )
            .map((s) => ({
              id: s.id,
              baseUrl: `${origin}${sessionPath(s.id)}`,
              createdAt: new Date(s.createdAt).toISOString(),
              expires: s.expires,
              lastUsedAt: new Date(s.lastUsedAt).toISOString(),
              ...(s.run === undefined ? {} : { run: s.run }),
              ...(s.owner === undefined ? {} : { owner: s.owner }),
              // Key IDs only: the secrets stay in the create answer and the session's state.
              ...(s.instance.ownKeys ? { ownKeyIds: s.instance.ownKeys.list().map((k) => k.keyId) } : {}),
            })),
        },
      };
    },

    deleteSession: (context) => {
      const id = String(context.request.params.sessionId);
      const own = context.instance.id;
      // From a session URL, another session does not exist.
      if (own !== undefined && id !== own)
        throw new ApiError('sessionNotFound', `no session with id "${id}"`);
      const owner = sessions.peek(id)?.owner;
      if (context.tenant !== undefined && sessions.peek(id) !== undefined && owner !== context.tenant) {
        throw notTenantsSession(id, context.tenant);
      }
      if (!sessions.delete(id)) throw new ApiError('sessionNotFound', `no session with id "${id}"`);
      return done;
    },
  };
}
