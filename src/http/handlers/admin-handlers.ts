import type { OperationContext, OperationTable } from '../../contract/operation-handler.js';
import type { AdminOperationId } from '../../contract/operation-ids.js';
import { ApiError } from '../../errors.js';
import type { ExpectedViolationInput } from '../../harness/expected-violations.js';
import type { FaultInput } from '../../harness/faults.js';
import { datasetFromInput } from '../../harness/fixture-input.js';
import type { Instance } from '../../harness/instance.js';
import { clockOf, healthOf, journaledRequest } from '../../harness/instance-controls.js';
import { type JournalFilter, type JournalPage, viewEntry } from '../../harness/journal.js';
import type { RateLimitInput } from '../../harness/rate-limits.js';
import type { StepChecks } from '../../harness/scenario-steps.js';
import type { MemoryBudget } from '../../memory-budget.js';
import { createTroubleHandlers } from './trouble-handlers.js';

/** Entries in one page of `GET /__admin/requests` when `limit` is not given. */
const DEFAULT_REQUESTS_PAGE = 100;
/** In that listing, bodies and responses longer than this are shown as the start of their text. */
const LISTED_BODY_BYTES = 4096;

import { buildReport, type Report, type ReportFormat } from '../../harness/report.js';
import { renderReport, reportMediaType } from '../../harness/report-formats.js';
import { clearRunReport, runReport } from '../../harness/run-reports.js';
import { type SessionRegistry, sessionPath } from '../../harness/sessions.js';
import { mergeSettings } from '../../harness/settings-input.js';

/**
 * The admin API: the fake's test-harness calls under /__admin. Each acts on the instance the
 * request was addressed to (the root, or the session under `/sessions/{id}`); the session calls
 * act on the server's sessions from either. Bodies and parameters are already checked against
 * the spec; every further check happens before anything changes.
 */

export interface AdminContext {
  root: Instance;
  sessions: SessionRegistry;
  /** The server's memory budget, reported by the root's health call. */
  memory?: MemoryBudget;
  /** The vendor operations of the spec, which reports list exercised or not. */
  operationIds: readonly string[];
  /** The spec's checks of a fault and a rate limit, for scenarios' steps (none: taken as given). */
  stepChecks?: StepChecks;
}

/** Without the spec's checks (a handler table built only to be listed), steps are taken as given. */
const UNCHECKED: StepChecks = {
  faultInput: (value) => value as FaultInput,
  rateLimitInput: (value) => value as RateLimitInput,
};

const done = { status: 200, body: { success: true } } as const;

/** The server's run reports, asked for at the root URL only. */
function runsAt(context: OperationContext<Instance>, sessions: SessionRegistry) {
  if (context.instance.id !== undefined || sessions.runs === undefined) {
    throw new ApiError(
      'adminForbidden',
      'Forbidden: a run\u2019s report is the root\u2019s; ask the root URL (/__admin/report?run=...)',
    );
  }
  return sessions.runs;
}

/** `http://host:port`: the request's base URL without the session prefix. */
function originOf(context: OperationContext<Instance>): string {
  const id = context.instance.id;
  return id === undefined ? context.baseUrl : context.baseUrl.slice(0, -sessionPath(id).length);
}

export function createAdminHandlers({
  root,
  sessions,
  memory,
  operationIds,
  stepChecks,
}: AdminContext): OperationTable<AdminOperationId, Instance> {
  return {
    ...createTroubleHandlers(stepChecks ?? UNCHECKED),
    getHealth: (context) => ({ status: 200, body: healthOf(context.instance, memory) }),

    resetState: (context) => {
      context.instance.reset();
      return done;
    },

    loadFixtures: (context) => {
      const dataset = datasetFromInput(context.request.body, 'body', true);
      context.instance.load(dataset);
      return { status: 200, body: { success: true, documents: dataset.documents.length } };
    },

    getState: (context) => {
      // At a million documents its text is longer than the longest string JavaScript can hold.
      return { status: 200, body: context.instance.fake.snapshot(), chunked: true };
    },

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
      body: await journaledRequest(context.instance, Number(context.request.params.requestId)),
    }),

    clearRequests: (context) => {
      context.instance.journal.clear();
      return done;
    },

    listViolations: async (context) => {
      const { journal } = context.instance;
      await journal.settled();
      return {
        status: 200,
        body: { violations: journal.violations(), unmetExpectations: context.instance.expectations.unmet() },
      };
    },

    listNotices: async (context) => {
      const { journal } = context.instance;
      await journal.settled();
      return { status: 200, body: { notices: journal.notices() } };
    },

    getReport: async (context) => {
      const format = (context.request.query.format as ReportFormat | undefined) ?? 'json';
      const run = context.request.query.run as string | undefined;
      let report: Report;
      if (run !== undefined) report = await runReport(runsAt(context, sessions), run);
      else {
        await context.instance.journal.settled();
        report = buildReport(context.instance, operationIds);
      }
      if (format === 'json') return { status: 200, body: report };
      // JUnit XML, CTRF JSON and Markdown are rendered once and sent as the text they are.
      const text = renderReport(report, format);
      return { status: 200, body: undefined, text: { text, mediaType: reportMediaType(format) } };
    },

    clearReport: (context) => {
      const run = context.request.query.run as string | undefined;
      if (run !== undefined) clearRunReport(runsAt(context, sessions), run);
      else context.instance.clearReport();
      return done;
    },

    createExpectedViolation: (context) => {
      const input = (context.request.body ?? {}) as ExpectedViolationInput;
      return { status: 201, body: { id: context.instance.expectations.add(input).id } };
    },

    listExpectedViolations: (context) => ({
      status: 200,
      body: { expectedViolations: context.instance.expectations.list() },
    }),

    clearExpectedViolations: (context) => {
      context.instance.expectations.clear();
      return done;
    },

    deleteExpectedViolation: (context) => {
      const id = String(context.request.params.expectationId);
      if (!context.instance.expectations.delete(id))
        throw new ApiError('routeNotFound', `no expected violation with id "${id}"`);
      return done;
    },

    createFault: (context) => {
      const fault = context.instance.faults.add(context.request.body as FaultInput);
      return { status: 201, body: { id: fault.id } };
    },

    listFaults: (context) => ({ status: 200, body: { faults: context.instance.faults.list() } }),

    clearFaults: (context) => {
      context.instance.faults.clear();
      return done;
    },

    deleteFault: (context) => {
      const id = String(context.request.params.faultId);
      if (!context.instance.faults.delete(id))
        throw new ApiError('routeNotFound', `no fault with id "${id}"`);
      return done;
    },

    getClock: (context) => ({ status: 200, body: clockOf(context.instance) }),

    setClock: (context) => {
      const body = context.request.body as { advanceSeconds?: number; now?: number };
      const { clock } = context.instance.fake;
      if (body.advanceSeconds !== undefined) clock.advance(body.advanceSeconds);
      else if (body.now !== undefined) clock.set(body.now);
      return { status: 200, body: clockOf(context.instance) };
    },

    revokeTokens: (context) => ({
      status: 200,
      body: { success: true, revoked: context.instance.fake.revokeTokens() },
    }),

    getSettings: (context) => ({ status: 200, body: context.instance.fake.settings }),

    updateSettings: (context) => {
      const { fake } = context.instance;
      fake.settings = mergeSettings(fake.settings, context.request.body);
      return { status: 200, body: fake.settings };
    },

    createSession: (context) => {
      if (context.instance.id !== undefined) {
        throw new ApiError(
          'adminForbidden',
          'Forbidden: a session manages itself only; create sessions from the root URL (/__admin/sessions)',
        );
      }
      const body = context.request.body as
        | { fixtures?: unknown; expires?: boolean; keys?: 'fixtures' | 'own'; run?: string }
        | undefined;
      sessions.assertRoom();
      // A set of its own is counted against the memory budget as long as the session lives
      // (as built); the root's is shared.
      const ownFixtures = body?.fixtures !== undefined;
      const dataset = ownFixtures
        ? datasetFromInput(body.fixtures, 'body/fixtures', true)
        : root.fake.resetPoint();
      const session = sessions.create(dataset, {
        ownFixtures,
        expires: body?.expires !== false,
        ownKeys: body?.keys === 'own',
        run: body?.run,
      });
      const created = { id: session.id, baseUrl: `${originOf(context)}${sessionPath(session.id)}` };
      // The secrets are answered here (and in the session's state) only.
      const keys = session.instance.ownKeys?.list();
      return { status: 201, body: keys ? { ...created, keys } : created };
    },

    listSessions: (context) => {
      const origin = originOf(context);
      // From a session URL: that session only, never the others (nor their keys or journals).
      const own = context.instance.id;
      return {
        status: 200,
        body: {
          sessions: sessions
            .list()
            .filter((s) => own === undefined || s.id === own)
            .map((s) => ({
              id: s.id,
              baseUrl: `${origin}${sessionPath(s.id)}`,
              createdAt: new Date(s.createdAt).toISOString(),
              expires: s.expires,
              lastUsedAt: new Date(s.lastUsedAt).toISOString(),
              ...(s.run === undefined ? {} : { run: s.run }),
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
      if ((own !== undefined && id !== own) || !sessions.delete(id)) {
        throw new ApiError('sessionNotFound', `no session with id "${id}"`);
      }
      return done;
    },
  };
}
