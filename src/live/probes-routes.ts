import { isDeepStrictEqual } from 'node:util';
import {
  bodyOf,
  errorFinding,
  idsOf,
  keysOf,
  kindOf,
  list,
  type Probe,
  type ProbeContext,
  rowsOf,
} from './probe-kit.js';

/** Probes of the other routes: reads, the live service's extra endpoints, errors, and the one write. */

/** How names show `&`, `'`, `"`, `<`: as HTML entities, raw, or (no such name) not telling. */
function entityUse(names: string[]): string {
  const encoded = names.some((n) => /&(#\d+|#x[0-9a-f]+|[a-z]+);/i.test(n));
  const raw = names.some((n) => /['"<>]|&(?!(#\d+|#x[0-9a-f]+|[a-z]+);)/i.test(n));
  if (encoded && !raw) return 'entity-encoded';
  if (raw && !encoded) return 'raw';
  return encoded ? 'mixed' : 'cannot tell';
}

/** The shape of a details object: which kinds its entries are. */
function detailKinds(details: unknown): string[] {
  if (details === null || typeof details !== 'object') return [];
  return [...new Set(Object.values(details).map(kindOf))].sort();
}

async function readDocument(ctx: ProbeContext, id: number) {
  return ctx.memo(`GET /api/v2/documents/${id}`, () => ctx.api.send('GET', `/api/v2/documents/${id}`));
}

export const ROUTE_PROBES: Probe[] = [
  {
    id: 'read-shape',
    question: 'What does reading one document give: fields, `templateUid` form, kinds of detail entries?',
    decision: '`templateUid`',
    sends: 'GET /api/v2/documents/<a document of the first page>',
    run: async (ctx) => {
      const answer = await readDocument(ctx, ctx.sample.documentId);
      const body = bodyOf(answer);
      const uid = String(body?.templateUid ?? '');
      return {
        status: answer.status,
        keys: keysOf(body),
        templateUid: /^tpl-\d+$/.test(uid)
          ? 'tpl-<n>'
          : /^TPL-\d+$/.test(uid)
            ? 'TPL-<n>'
            : kindOf(body?.templateUid),
        success: kindOf(body?.success),
        detailKinds: detailKinds(body?.details),
      };
    },
  },
  {
    id: 'client-name-entities',
    question:
      'Are client names HTML-entity-encoded (`Matt&#039;s Museum`) in list rows and in documents/clients?',
    decision: 'list rows',
    sends:
      'GET /api/v2/documents/clients?resultsPerPage=100&pageNum=1 (and the first page of documents by label)',
    run: async (ctx) => {
      const clients = await list(ctx, 'resultsPerPage=100&pageNum=1', '/api/v2/documents/clients');
      const rows = await list(ctx, 'orderBy=label&orderDir=asc&resultsPerPage=100&pageNum=1');
      const names = (rowsOf(clients) ?? []).map((r) => String(r.name ?? ''));
      const rowNames = (rowsOf(rows) ?? []).map((r) => String(r.clientName ?? ''));
      const found = entityUse([...names, ...rowNames]);
      if (found === 'cannot tell') return { unknown: 'no client name holds &, an apostrophe, a quote or <' };
      return { names: found };
    },
  },
  {
    id: 'documents-clients',
    question: 'Does `GET /api/v2/documents/clients` answer, and with which row fields?',
    decision: 'endpoints beyond',
    sends: 'GET /api/v2/documents/clients?resultsPerPage=100&pageNum=1',
    run: async (ctx) => {
      const answer = await list(ctx, 'resultsPerPage=100&pageNum=1', '/api/v2/documents/clients');
      return { status: answer.status, row: keysOf(rowsOf(answer)?.[0]) };
    },
  },
  {
    id: 'documents-all',
    question: 'Does `GET /api/v2/documents/all` answer the list again?',
    decision: 'endpoints beyond',
    sends:
      'GET /api/v2/documents/all?resultsPerPage=5&pageNum=1&orderBy=id, against the list with the same query',
    run: async (ctx) => {
      const query = 'resultsPerPage=5&pageNum=1&orderBy=id&orderDir=asc';
      const all = await list(ctx, query, '/api/v2/documents/all');
      const plain = await list(ctx, query);
      return { status: all.status, sameAsList: all.status === 200 && idsOf(all) === idsOf(plain) };
    },
  },
  {
    id: 'missing-document',
    question: 'What does reading a document that does not exist get?',
    decision: 'visibility',
    sends: 'GET /api/v2/documents/2147483646',
    run: async (ctx) => errorFinding(await readDocument(ctx, 2147483646)),
  },
  {
    id: 'invalid-document-id',
    question: 'What do a non-numeric and a zero `documentId` get?',
    decision: 'non-numeric',
    sends: 'GET /api/v2/documents/abc and GET /api/v2/documents/0',
    run: async (ctx) => ({
      abc: errorFinding(await ctx.api.send('GET', '/api/v2/documents/abc')),
      zero: errorFinding(await ctx.api.send('GET', '/api/v2/documents/0')),
    }),
  },
  {
    id: 'wrong-method',
    question: 'What does a wrong method get, and which `Allow` header?',
    decision: 'unknown route',
    sends: 'GET /api/v2/auth/client_token (a read: the route takes POST only)',
    run: async (ctx) => {
      const answer = await ctx.api.send('GET', '/api/v2/auth/client_token', { token: 'none' });
      const { status, code } = errorFinding(answer);
      return { status, code, allow: answer.headers.allow ?? null };
    },
  },
  {
    id: 'unknown-route',
    question: 'What does an unknown route under /api/v2 get?',
    decision: 'unknown route',
    sends: 'GET /api/v2/no-such-route',
    run: async (ctx) => {
      const { status, code } = errorFinding(await ctx.api.send('GET', '/api/v2/no-such-route'));
      return { status, code };
    },
  },
  {
    id: 'patch-success-literal',
    question: 'Is `success` of a PATCH answer the string `"true"` or the boolean?',
    decision: '`success` literals',
    sends:
      'only with --allow-writes <documentId>: GET the document, PATCH it with its own details (a read-modify-write that changes nothing), GET it again and compare; if anything differs, PATCH the original back and check again',
    writes: true,
    setting: {
      name: 'successLiterals',
      valueFor: (live) =>
        live.success === 'string' ? 'contract' : live.success === 'boolean' ? 'boolean' : undefined,
    },
    run: async (ctx) => {
      const id = ctx.writableDocumentId;
      if (id === undefined) return { unknown: 'read-only run (--allow-writes names a document to use)' };
      const path = `/api/v2/documents/${id}`;
      const before = bodyOf(await ctx.api.send('GET', path))?.details;
      if (before === undefined) return { unknown: `document ${id} cannot be read` };
      const answer = await ctx.api.send('PATCH', path, { body: before });
      let after = bodyOf(await ctx.api.send('GET', path))?.details;
      let restored = isDeepStrictEqual(after, before);
      if (!restored) {
        await ctx.api.send('PATCH', path, { body: before });
        after = bodyOf(await ctx.api.send('GET', path))?.details;
        restored = isDeepStrictEqual(after, before);
        if (!restored) {
          throw new Error(
            `document ${id} changed after the write probe and could not be restored: compare it with your records`,
          );
        }
      }
      return { status: answer.status, success: kindOf(bodyOf(answer)?.success) };
    },
  },
];
