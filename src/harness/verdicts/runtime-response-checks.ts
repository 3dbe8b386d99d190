import type { ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { createResponseChecker, type ResponseChecker } from '../../contract/response-validator.js';
import type { OpenApiDocument } from '../../contract/spec-document.js';
import type { Violation } from '../../errors.js';
import { hasUnexpected } from '../controls/expected-violations.js';
import type { Instance } from '../instance/instance.js';
import type { JournalEntry } from './journal.js';

function flatHeaders(res: ServerResponse): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.getHeaders())) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : String(value);
  }
  return out;
}

const inResponse = (v: Violation): Violation =>
  v.location.startsWith('response') ? v : { location: `response.${v.location}`, message: v.message };

/**
 * Run-time response validation (setting `validateResponses`): after a response is sent, it is
 * checked against its operation off the request path (the response is never delayed), each
 * violation is logged at warn and added to the journal entry. The prism-based checker is built
 * on first use, so servers that never turn the setting on never load it.
 */
export class ResponseChecks {
  readonly #document: OpenApiDocument;
  readonly #logger: Logger;
  #checker: Promise<ResponseChecker> | undefined;

  constructor(document: OpenApiDocument, logger: Logger) {
    this.#document = document;
    this.#logger = logger;
  }

  /** Schedules the check of a sent response; `instance.journal.settled()` waits for it. */
  schedule(
    instance: Instance,
    entry: JournalEntry,
    operationId: string,
    res: ServerResponse,
    bodyText: string | undefined,
  ): void {
    const input = {
      operationId,
      status: res.statusCode,
      headers: flatHeaders(res),
      // The JSON as it went on the wire.
      body: bodyText === undefined ? undefined : (JSON.parse(bodyText) as unknown),
    };
    if (!this.#checker) {
      const loading = createResponseChecker(this.#document);
      // A failed load is retried by the next check rather than remembered.
      loading.catch(() => {
        if (this.#checker === loading) this.#checker = undefined;
      });
      this.#checker = loading;
    }
    const work = this.#checker
      .then((check) => {
        const violations = check(input).map(inResponse);
        for (const violation of violations) {
          this.#logger.warn(
            { session: instance.id, requestId: entry.id, operationId, status: input.status, violation },
            `response breaks the contract: ${violation.location} ${violation.message}`,
          );
        }
        const first = entry.violations.length === 0;
        const wasViolating = hasUnexpected(entry.violations);
        const bytes = instance.journal.addViolations(entry, violations);
        if (violations.length > 0) instance.coverage.addViolations(entry, first, bytes);
        instance.verdict.violationsAdded(entry, wasViolating);
      })
      .catch((error: unknown) => {
        this.#logger.error({ err: error, operationId }, 'response check failed');
      });
    instance.journal.track(work);
  }
}
