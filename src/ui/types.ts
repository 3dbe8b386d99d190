/**
 * The shapes the admin API answers (spec/openapi.yaml, tag admin): the server's own types,
 * imported as types only, so the build erases them and the inspector can never drift from what
 * the server sends.
 */
import type { AdminClient } from '../client/admin-client.js';

export type { Clock, RequestsQuery, SessionInfo as Session } from '../client/admin-client.js';
export type { Settings } from '../config.js';
export type {
  ApiKey,
  Dataset as State,
  Document as DocumentRow,
  FixtureSet,
  Template,
  TemplateField,
} from '../domain/types.js';
export type { Violation as Finding } from '../errors.js';
export type { FaultInput, FaultView as Fault } from '../harness/controls/faults.js';
export type { JournalEntryView as JournalEntry } from '../harness/verdicts/journal.js';
export type { Report } from '../harness/verdicts/report.js';

/** One page of the journal (`GET /__admin/requests`). */
export type JournalPage = Awaited<ReturnType<AdminClient['requests']>>;
