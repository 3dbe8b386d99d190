import type { BehaviourMark } from '../behaviour-marks.js';
import type { Principal } from '../domain/fake.js';
import type { Notice } from '../notices.js';
import type { Operation } from './operations.js';
import type { ValidRequest } from './request-validator.js';

/**
 * A plain request, already checked against the spec: what a handler sees. `TInstance` is what
 * serves the request (the HTTP layer's instance: a fake with its journal and faults); the
 * contract neither knows nor needs its shape.
 */
export interface OperationContext<TInstance = unknown> {
  operation: Operation;
  instance: TInstance;
  /** Set for operations that need an access token. */
  principal: Principal | undefined;
  /**
   * The tenant calling the admin API with its own token (its name; `--tenants`); undefined for
   * the operator, for an open admin API and for the vendor API.
   */
  tenant?: string;
  request: ValidRequest;
  headers: Record<string, string | string[] | undefined>;
  /** The vendor's request identifier for this request (also in error bodies). */
  requestId: string;
  /** Where this instance is served: `http://host:port` or `http://host:port/sessions/{id}`. */
  baseUrl: string;
  /** Journals a notice on the request: it works here, but relies on something undocumented. */
  notice(notice: Notice): void;
}

/**
 * A plain response: the router's one sender renders `body` as JSON (http/send-json.ts), so what a
 * handler puts in `body` is what goes on the wire.
 */
export interface OperationResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  /**
   * Sent in pieces as the socket drains (chunked, no length up front), for answers too large to
   * be one string (a state of a million documents); such answers are not kept for the journal.
   */
  chunked?: boolean;
  /** A body that is not JSON (a JUnit XML or Markdown report): sent as it is, with its media type, instead of `body`. */
  text?: { text: string; mediaType: string };
  /**
   * The behaviours the answer shows that only the handler or the domain knows (a short last page,
   * a batch that created documents...): see `behaviour-marks.ts`.
   */
  marks?: readonly BehaviourMark[];
}

export type OperationHandler<TInstance = unknown> = (
  context: OperationContext<TInstance>,
) => OperationResult | Promise<OperationResult>;

/** Handlers by operation id, as a router takes them: operations without one go to the fallback. */
export type HandlerTable<TInstance = unknown> = Partial<Record<string, OperationHandler<TInstance>>>;

/**
 * A handler for every operation of a list of ids (from `operation-ids.ts`, made from the spec):
 * the compiler fails on an operation of the spec without a handler and on a handler under an id
 * the spec does not have.
 */
export type OperationTable<TId extends string, TInstance = unknown> = {
  readonly [K in TId]: OperationHandler<TInstance>;
};
