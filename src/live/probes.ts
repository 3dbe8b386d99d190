import { LiveStop } from './api-target.js';
import { list, type Probe, type ProbeContext, rowsOf, type Sample } from './probe-kit.js';
import { LIST_PROBES } from './probes-list.js';
import { ROUTE_PROBES } from './probes-routes.js';
import { TOKEN_PROBES } from './probes-token.js';

/**
 * The probe catalogue: one probe per question about a decision of docs/decisions.md. The order
 * is the order they run in; ids are stable (ledgers and other tools name them).
 */
export const PROBES: readonly Probe[] = [...TOKEN_PROBES, ...LIST_PROBES, ...ROUTE_PROBES];

/**
 * What the probes need to know about a tenant before they start: a document, a client, a
 * template and a label word, from the first page by id.
 */
export async function takeSample(ctx: Omit<ProbeContext, 'sample'>): Promise<Sample> {
  const answer = await list(
    { ...ctx, sample: { documentId: 0, clientId: 0, templateId: 0, labelWord: undefined } },
    'resultsPerPage=20&pageNum=1&orderBy=id&orderDir=asc',
  );
  const rows = rowsOf(answer) ?? [];
  const first = rows[0];
  if (first === undefined) {
    throw new LiveStop(
      'answer',
      `${ctx.api.host} lists no documents for this key (status ${answer.status}): the probes need at least one`,
    );
  }
  const clients = rows.map((r) => Number(r.client_id));
  // A client other than the first row's, so that filtering by it changes the first rows.
  const partial = clients.find((c) => c !== clients[0]);
  const word = rows
    .flatMap((r) => String(r.label ?? '').split(/[^\p{L}\p{N}]+/u))
    .find((w) => w.length >= 3 && /\p{L}/u.test(w));
  return {
    documentId: Number(first.id),
    clientId: partial ?? Number(first.client_id),
    templateId: Number(first.templateId),
    labelWord: word,
  };
}
