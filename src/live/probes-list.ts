import type { Answer } from './api-target.js';
import {
  bodyOf,
  errorFinding,
  idsOf,
  keysOf,
  kindOf,
  list,
  type Probe,
  readAs,
  readAsFinding,
  rowsOf,
} from './probe-kit.js';

/** Probes of the list call: paging, parameters, spellings, filters, ordering, search. */

const PAGE5 = 'resultsPerPage=5&pageNum=1&orderBy=id&orderDir=asc';

/** Labels sorted as `compare` says, or not. */
function sortedBy(labels: string[], key: (s: string) => string): boolean {
  for (let i = 1; i < labels.length; i += 1) {
    const a = key(labels[i - 1] ?? '');
    const b = key(labels[i] ?? '');
    if (a > b) return false;
  }
  return true;
}

export const LIST_PROBES: Probe[] = [
  {
    id: 'page-size-cap',
    question: 'How many rows does `resultsPerPage=1000` give, against the total (is there a cap)?',
    decision: '`resultsPerPage`',
    sends: 'GET /api/v2/documents?resultsPerPage=1000&pageNum=1, then pageNum=2 (is there more?)',
    setting: {
      name: 'maxResultsPerPage',
      valueFor: (live) => (typeof live.cap === 'number' ? live.cap : undefined),
    },
    run: async (ctx) => {
      const first = await list(ctx, 'resultsPerPage=1000&pageNum=1&orderBy=id&orderDir=asc');
      const rows = rowsOf(first)?.length;
      if (rows === undefined) return { status: first.status };
      if (rows >= 1000) return { cap: 'none up to 1000' };
      const second = await list(ctx, 'resultsPerPage=1000&pageNum=2&orderBy=id&orderDir=asc');
      const more = rowsOf(second)?.length ?? 0;
      if (more === 0) return { unknown: `the tenant holds ${rows} documents, fewer than any cap shows` };
      return { cap: rows };
    },
  },
  {
    id: 'page-num-omitted',
    question: 'Which page does a list without `pageNum` answer (1, or the documented default 100)?',
    decision: '`pageNum` default',
    sends:
      'GET /api/v2/documents with resultsPerPage=5 and no pageNum; the same with pageNum=1 and pageNum=100',
    setting: {
      name: 'defaultPageNum',
      valueFor: (live) => (live.page === 'pageNum=1' ? 1 : live.page === 'pageNum=100' ? 100 : undefined),
    },
    run: async (ctx) => {
      const omitted = await list(ctx, 'resultsPerPage=5&orderBy=id&orderDir=asc');
      const one = await list(ctx, PAGE5);
      const hundred = await list(ctx, 'resultsPerPage=5&pageNum=100&orderBy=id&orderDir=asc');
      if (omitted.status !== 200) return { status: omitted.status };
      const ids = idsOf(omitted);
      if (idsOf(one) === idsOf(hundred)) return { unknown: 'pages 1 and 100 look alike' };
      return {
        page: ids === idsOf(one) ? 'pageNum=1' : ids === idsOf(hundred) ? 'pageNum=100' : 'another page',
      };
    },
  },
  {
    id: 'page-num-zero',
    question: 'What does `pageNum=0` get: status, code and message?',
    decision: 'invalid query values',
    sends: 'GET /api/v2/documents?pageNum=0',
    run: async (ctx) => errorFinding(await list(ctx, 'pageNum=0')),
  },
  {
    id: 'error-success-type',
    question: 'Is `success` in an error body the boolean `false` or the string `"false"`?',
    decision: 'error body',
    sends: 'nothing more: reads the answer to pageNum=0',
    setting: {
      name: 'errorSuccess',
      valueFor: (live) =>
        live.success === 'string' ? 'string' : live.success === 'boolean' ? 'boolean' : undefined,
    },
    run: async (ctx) => {
      const answer = await list(ctx, 'pageNum=0');
      if (answer.status < 400) return { unknown: `pageNum=0 was answered ${answer.status}` };
      return { success: kindOf(bodyOf(answer)?.success) };
    },
  },
  {
    id: 'page-past-end',
    question: 'What does a page past the end get?',
    decision: 'page past the end',
    sends: 'GET /api/v2/documents?resultsPerPage=5&pageNum=9999',
    run: async (ctx) => {
      const answer = await list(ctx, 'resultsPerPage=5&pageNum=9999&orderBy=id&orderDir=asc');
      return {
        status: answer.status,
        success: bodyOf(answer)?.success ?? null,
        rows: rowsOf(answer)?.length ?? null,
      };
    },
  },
  {
    id: 'empty-query-values',
    question: 'Do empty query values (`?orderBy&searchTxt`) mean "not given"?',
    decision: 'empty query values',
    sends:
      'GET /api/v2/documents?resultsPerPage=5&pageNum=1&orderBy&searchTxt&type, against the same without them',
    run: async (ctx) => {
      const empty = await list(ctx, 'resultsPerPage=5&pageNum=1&orderBy&searchTxt&type');
      const plain = await list(ctx, 'resultsPerPage=5&pageNum=1');
      return { status: empty.status, sameAsWithout: empty.status === 200 && idsOf(empty) === idsOf(plain) };
    },
  },
  {
    id: 'spelling-clientID',
    question: 'Is `clientID` read as `clientId`?',
    decision: 'spelling variants',
    sends:
      'GET /api/v2/documents?resultsPerPage=5&pageNum=1&orderBy=id with clientID=<a client>, with clientId=<it>, and with neither',
    run: async (ctx) => {
      const base = 'resultsPerPage=5&pageNum=1&orderBy=id&orderDir=asc';
      const id = ctx.sample.clientId;
      return readAsFinding(
        readAs(
          await list(ctx, `${base}&clientID=${id}`),
          await list(ctx, `${base}&clientId=${id}`),
          await list(ctx, base),
        ),
      );
    },
  },
  {
    id: 'spelling-orderBY',
    question: 'Is `orderBY` read as `orderBy`?',
    decision: 'spelling variants',
    sends:
      'GET /api/v2/documents?resultsPerPage=5&pageNum=1&orderDir=desc with orderBY=id, with orderBy=id, and with neither',
    run: async (ctx) => {
      const base = 'resultsPerPage=5&pageNum=1&orderDir=desc';
      return readAsFinding(
        readAs(
          await list(ctx, `${base}&orderBY=id`),
          await list(ctx, `${base}&orderBy=id`),
          await list(ctx, base),
        ),
      );
    },
  },
  {
    id: 'spelling-templateUID',
    question: 'Is `templateUID` read as `templateUid`?',
    decision: 'spelling variants',
    sends:
      'GET /api/v2/documents?resultsPerPage=5&pageNum=1&orderBy=id with templateUID=tpl-<n>, with templateUid=tpl-<n>, and with neither',
    run: async (ctx) => {
      const base = 'resultsPerPage=5&pageNum=1&orderBy=id&orderDir=asc';
      const uid = `tpl-${ctx.sample.templateId}`;
      return readAsFinding(
        readAs(
          await list(ctx, `${base}&templateUID=${uid}`),
          await list(ctx, `${base}&templateUid=${uid}`),
          await list(ctx, base),
        ),
      );
    },
  },
  {
    id: 'templateuid-forms',
    question: 'Do `tpl-<n>`, `TPL-<n>` and `<n>` filter alike?',
    decision: '`templateUid`',
    sends:
      'GET /api/v2/documents?resultsPerPage=5&pageNum=1&orderBy=id with templateUid=tpl-<n>, TPL-<n> and <n>',
    run: async (ctx) => {
      const base = 'resultsPerPage=5&pageNum=1&orderBy=id&orderDir=asc';
      const n = ctx.sample.templateId;
      const forms = [`tpl-${n}`, `TPL-${n}`, String(n)];
      const answers: Answer[] = [];
      for (const form of forms) answers.push(await list(ctx, `${base}&templateUid=${form}`));
      return {
        statuses: answers.map((a) => a.status),
        alike: answers.every((a) => idsOf(a) === idsOf(answers[0] ?? a)),
      };
    },
  },
  {
    id: 'repeated-parameter',
    question: 'Which value counts when a parameter is repeated (`pageNum=1&pageNum=2`)?',
    decision: 'a repeated query parameter',
    sends: 'GET /api/v2/documents?resultsPerPage=5&pageNum=1&pageNum=2, against pageNum=1 and pageNum=2',
    run: async (ctx) => {
      const base = 'resultsPerPage=5&orderBy=id&orderDir=asc';
      const both = await list(ctx, `${base}&pageNum=1&pageNum=2`);
      const first = await list(ctx, `${base}&pageNum=1`);
      const second = await list(ctx, `${base}&pageNum=2`);
      if (both.status !== 200) return errorFinding(both);
      if (idsOf(first) === idsOf(second)) return { unknown: 'pages 1 and 2 look alike' };
      const ids = idsOf(both);
      return { counts: ids === idsOf(second) ? 'the last' : ids === idsOf(first) ? 'the first' : 'neither' };
    },
  },
  {
    id: 'unknown-parameter',
    question: 'Is a parameter the operation does not have (`orderby`, lower-case) ignored?',
    decision: 'a query parameter the operation does not have',
    sends:
      'GET /api/v2/documents?resultsPerPage=5&pageNum=1&orderDir=desc&orderby=id, against the same with orderBy=id and without',
    run: async (ctx) => {
      const base = 'resultsPerPage=5&pageNum=1&orderDir=desc';
      return readAsFinding(
        readAs(
          await list(ctx, `${base}&orderby=id`),
          await list(ctx, `${base}&orderBy=id`),
          await list(ctx, base),
        ),
      );
    },
  },
  {
    id: 'type-outside-list',
    question: 'What does a `type` outside the documented list (`folders`) get?',
    decision: '`type` outside',
    sends: 'GET /api/v2/documents?type=folders&resultsPerPage=5&pageNum=1',
    run: async (ctx) => {
      const answer = await list(ctx, 'type=folders&resultsPerPage=5&pageNum=1');
      const rows = rowsOf(answer);
      if (rows === undefined) return errorFinding(answer);
      return { status: answer.status, rows: rows.length === 0 ? 'none' : 'some' };
    },
  },
  {
    id: 'label-ordering',
    question: 'Is `orderBy=label` case-insensitive (by code point after lower-casing)?',
    decision: 'ordering',
    sends: 'GET /api/v2/documents?orderBy=label&orderDir=asc&resultsPerPage=100&pageNum=1',
    run: async (ctx) => {
      const labels = rowsOf(await list(ctx, 'orderBy=label&orderDir=asc&resultsPerPage=100&pageNum=1'))?.map(
        (r) => String(r.label),
      );
      if (labels === undefined) return { unknown: 'no list' };
      const lower = sortedBy(labels, (s) => s.toLowerCase());
      const raw = sortedBy(labels, (s) => s);
      if (lower && raw) return { unknown: 'the first labels sort alike either way' };
      return { order: lower ? 'case-insensitive' : raw ? 'case-sensitive' : 'another collation' };
    },
  },
  {
    id: 'order-value-case',
    question: 'Are `orderBy`/`orderDir` values read in any case (`ID`, `DESC`)?',
    decision: 'ordering',
    sends:
      'GET /api/v2/documents?resultsPerPage=5&pageNum=1 with orderBy=ID&orderDir=DESC and with orderBy=id&orderDir=desc',
    run: async (ctx) => {
      const upper = await list(ctx, 'resultsPerPage=5&pageNum=1&orderBy=ID&orderDir=DESC');
      const lower = await list(ctx, 'resultsPerPage=5&pageNum=1&orderBy=id&orderDir=desc');
      return { status: upper.status, alike: upper.status === 200 && idsOf(upper) === idsOf(lower) };
    },
  },
  {
    id: 'search-case',
    question: 'Is `searchTxt` case-insensitive?',
    decision: '`searchTxt`',
    sends:
      'GET /api/v2/documents?searchTxt=<a word of a label> upper-cased and lower-cased, resultsPerPage=20',
    run: async (ctx) => {
      const word = ctx.sample.labelWord;
      if (word === undefined) return { unknown: 'no label word to search for' };
      const q = (w: string) =>
        `resultsPerPage=20&pageNum=1&orderBy=id&orderDir=asc&searchTxt=${encodeURIComponent(w)}`;
      const upper = await list(ctx, q(word.toUpperCase()));
      const lower = await list(ctx, q(word.toLowerCase()));
      return {
        status: upper.status,
        alike: upper.status === 200 && idsOf(upper) === idsOf(lower),
        found: (rowsOf(lower)?.length ?? 0) > 0,
      };
    },
  },
  {
    id: 'list-row-keys',
    question: 'Which fields do list rows and the list body carry?',
    decision: 'list rows',
    sends: 'nothing more: reads the first page by id',
    run: async (ctx) => {
      const answer = await list(ctx, PAGE5);
      const row = rowsOf(answer)?.[0];
      return { body: keysOf(bodyOf(answer)), row: keysOf(row), clientName: kindOf(row?.clientName) };
    },
  },
];
