import type { Answer } from './api-target.js';
import { bodyOf, errorFinding, type Finding, kindOf, type Probe, type ProbeContext } from './probe-kit.js';

/** Probes of the token call: body encodings, scope spellings, hash forms, the token's lifetime. */

/** Whether a token call issued a token, as a finding. */
function issued(answer: Answer): Finding {
  const body = bodyOf(answer);
  return { status: answer.status, issued: body?.access_token === '(a token)' };
}

/** The run's own token call (made once, before the probes): its answer, without the token. */
async function mainTokenAnswer(ctx: ProbeContext): Promise<Answer | undefined> {
  await ctx.api.token();
  return ctx.api.tokenAnswer;
}

export const TOKEN_PROBES: Probe[] = [
  {
    id: 'token-json',
    question: 'Is a token call with a JSON body answered with a token?',
    decision: 'token body encoding',
    sends:
      'POST /api/v2/auth/client_token, JSON body `{scope: "docs_api", content}`, `x-key`, lower-case hex `x-hash`',
    run: async (ctx) => issued((await ctx.api.tokenCall()).answer),
  },
  {
    id: 'token-form',
    question: 'Is a token call with a form-encoded body answered with a token?',
    decision: 'token body encoding',
    sends: 'POST /api/v2/auth/client_token, the same fields form-encoded',
    run: async (ctx) => issued((await ctx.api.tokenCall({ form: true })).answer),
  },
  {
    id: 'scope-docs-api',
    question: 'Is the scope spelt `docs-api` (as the parameter table writes it) accepted?',
    decision: 'scope spelling',
    sends: 'POST /api/v2/auth/client_token with `scope: "docs-api"`',
    run: async (ctx) => issued((await ctx.api.tokenCall({ scope: 'docs-api' })).answer),
  },
  {
    id: 'scope-other',
    question: 'What does a token call with another scope get?',
    decision: 'scope spelling',
    sends: 'POST /api/v2/auth/client_token with `scope: "documents"`',
    run: async (ctx) => errorFinding((await ctx.api.tokenCall({ scope: 'documents' })).answer),
  },
  {
    id: 'hash-upper-case',
    question: 'Is the hash accepted in upper-case hex?',
    decision: 'hash algorithm',
    sends: 'POST /api/v2/auth/client_token with the HMAC-SHA256 hex digest upper-cased',
    run: async (ctx) => issued((await ctx.api.tokenCall({ upperCaseHash: true })).answer),
  },
  {
    id: 'hash-wrong',
    question: 'What does a token call with a wrong hash get?',
    decision: 'unknown key ID vs wrong hash',
    sends: 'POST /api/v2/auth/client_token with a hash of 64 zeros',
    run: async (ctx) => {
      const { status, code } = errorFinding((await ctx.api.tokenCall({ hash: '0'.repeat(64) })).answer);
      return { status, code };
    },
  },
  {
    id: 'key-unknown',
    question: 'What does a token call with a key ID the service does not know get?',
    decision: 'unknown key ID vs wrong hash',
    sends: 'POST /api/v2/auth/client_token with `x-key` of 64 zeros',
    run: async (ctx) => {
      const { status, code } = errorFinding((await ctx.api.tokenCall({ keyId: '0'.repeat(64) })).answer);
      return { status, code };
    },
  },
  {
    id: 'missing-x-hash',
    question: 'What does a token call without `x-hash` get?',
    decision: 'missing `x-key` or `x-hash`',
    sends: 'POST /api/v2/auth/client_token without the `x-hash` header',
    run: async (ctx) => {
      const { status, code } = errorFinding((await ctx.api.tokenCall({ omitHash: true })).answer);
      return { status, code };
    },
  },
  {
    id: 'token-expiry-type',
    question: 'Is `expiry_time` a number or a string?',
    decision: 'token lifetime',
    sends: 'nothing more: reads the run’s own token call',
    run: async (ctx) => {
      const answer = await mainTokenAnswer(ctx);
      return { expiry_time: kindOf(answer && bodyOf(answer)?.expiry_time) };
    },
  },
  {
    id: 'token-lifetime',
    question: 'How long does a token live (`expiry_time` less the answer’s `Date`, to the minute)?',
    decision: 'token lifetime',
    sends: 'nothing more: reads the run’s own token call',
    setting: {
      name: 'tokenTtlSeconds',
      valueFor: (live) => (typeof live.seconds === 'number' && live.seconds > 0 ? live.seconds : undefined),
    },
    run: async (ctx) => {
      const answer = await mainTokenAnswer(ctx);
      const expiry = Number(answer && bodyOf(answer)?.expiry_time);
      const date = Date.parse(answer?.headers.date ?? '');
      if (!Number.isFinite(expiry) || Number.isNaN(date)) {
        return { unknown: 'the token answer has no numeric expiry_time or no Date header' };
      }
      return { seconds: Math.round((expiry - date / 1000) / 60) * 60 };
    },
  },
  {
    id: 'refresh-token',
    question: 'Does the token answer carry a refresh token?',
    decision: 'refresh token',
    sends: 'nothing more: reads the run’s own token call',
    run: async (ctx) => {
      const answer = await mainTokenAnswer(ctx);
      return { refresh_token: kindOf(answer && bodyOf(answer)?.refresh_token) };
    },
  },
  {
    id: 'x-api-token',
    question: 'Is the token accepted in the `x-api-token` header (the parameter tables’ spelling)?',
    decision: 'token header',
    sends:
      'GET /api/v2/documents?resultsPerPage=1&pageNum=1 with the token in `x-api-token` instead of `x-access-token`',
    run: async (ctx) => {
      const answer = await ctx.api.send('GET', '/api/v2/documents', {
        query: 'resultsPerPage=1&pageNum=1',
        token: 'x-api-token',
      });
      return { status: answer.status };
    },
  },
];
