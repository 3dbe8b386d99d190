import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Dispatcher, fetch } from 'undici';
import { computeHash } from '../domain/tokens.js';
import { SecretScrubber } from '../secret-scrub.js';
import { RateLimitSignals } from './rate-limit-signals.js';

/**
 * One service the live tools talk to: the live tenant or the fake started beside it. It sends
 * requests one at a time, spaced by the rate limit and counted against the request bound, gets
 * and keeps an access token, and turns what must stop a run (a refused key, 429, a network error,
 * the bound) into a `LiveStop`. It keeps the key and the token to itself: neither is ever part of
 * an answer it hands back or of a message it makes (`scrubber` knows them, for what others write).
 * Every answer is bounded: it must be whole within `answerTimeoutMs` (and before the run's
 * deadline), and its body is read as it streams and given up past `maxAnswerBytes`; either stops
 * the run naming the request.
 */

export interface Credentials {
  keyId: string;
  secret: string;
}

/** An answer as the probes see it: status, a few headers, the JSON body (undefined when not JSON). */
export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

export interface SendOptions {
  query?: string;
  /** JSON body, or a form body when `form` is set. */
  body?: unknown;
  form?: Record<string, string>;
  headers?: Record<string, string>;
  /** Which header carries the access token (default `x-access-token`); `none` sends no token. */
  token?: 'x-access-token' | 'x-api-token' | 'none';
}

export type StopKind =
  | 'auth'
  | 'rate-limited'
  | 'network'
  | 'bound'
  | 'answer'
  | 'too-slow'
  | 'too-large'
  | 'deadline';

/** What ends a run early, with a message that says what to do. */
export class LiveStop extends Error {
  constructor(
    readonly kind: StopKind,
    message: string,
  ) {
    super(message);
    this.name = 'LiveStop';
  }
}

export interface TargetOptions {
  /** `https://us-clover.passportalmsp.com` (no trailing slash needed). */
  base: string;
  credentials: Credentials;
  dispatcher: Dispatcher;
  /** Most requests a second (0: no limit, for the fake). */
  rate: number;
  /** Most requests in all (undefined: no bound). */
  maxRequests?: number;
  /** Called before each request, for progress. */
  onRequest?: (count: number) => void;
  /** The scope the token call names. */
  scope?: string;
  /** Longest wait for one whole answer, headers and body (default 30 s). */
  answerTimeoutMs?: number;
  /** Largest answer body read (default 16 MiB). */
  maxAnswerBytes?: number;
  /** When the run must end (epoch milliseconds; undefined: no deadline). */
  deadlineAt?: number;
}

export const DEFAULT_ANSWER_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_ANSWER_BYTES = 16 * 1024 * 1024;

/** The headers a probe may look at: nothing that could carry a secret. */
const KEPT_HEADERS = ['allow', 'content-type', 'date', 'retry-after'];

export class ApiTarget {
  readonly base: string;
  #requests = 0;
  #nextAt = 0;
  #token: Promise<string> | undefined;
  /** The 429s and rate-limit headers the service sent, for the ledger. */
  readonly rateLimits = new RateLimitSignals();
  /** The token call's answer (no token in it), for the probes that read the expiry. */
  tokenAnswer: Answer | undefined;
  /** Knows the key ID, the secret, and each token and hash sent: scrubs them from any text. */
  readonly scrubber = new SecretScrubber();

  constructor(readonly options: TargetOptions) {
    this.base = options.base.replace(/\/+$/, '');
    this.scrubber.add(options.credentials.keyId, options.credentials.secret);
  }

  get requests(): number {
    return this.#requests;
  }

  get host(): string {
    return new URL(this.base).host;
  }

  /**
   * Waits for the request's turn: requests start at least 1/rate seconds apart, so no second
   * ever holds more than `rate` of them.
   */
  async #turn(): Promise<void> {
    const { rate, maxRequests } = this.options;
    const { deadlineAt } = this.options;
    if (deadlineAt !== undefined && Date.now() >= deadlineAt) {
      throw new LiveStop(
        'deadline',
        `stopped after ${this.#requests} requests to ${this.host}: the run's deadline (--deadline) has passed; raise it to go on`,
      );
    }
    if (maxRequests !== undefined && this.#requests >= maxRequests) {
      throw new LiveStop(
        'bound',
        `stopped after ${this.#requests} requests to ${this.host}, the bound set by --max-requests; raise it to go on`,
      );
    }
    if (rate > 0) {
      const wait = this.#nextAt - Date.now();
      if (wait > 0) await sleep(wait);
      this.#nextAt = Date.now() + Math.ceil(1000 / rate);
    }
    this.#requests += 1;
    this.options.onRequest?.(this.#requests);
  }

  /** Sends one request and reads its answer; a 429 or a network error stops the run. */
  async send(method: string, path: string, options: SendOptions = {}): Promise<Answer> {
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    const tokenHeader = options.token ?? 'x-access-token';
    if (tokenHeader !== 'none') headers[tokenHeader] = await this.token();
    let body: string | undefined;
    if (options.form !== undefined) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    } else if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.body);
    }
    await this.#turn();
    const url = `${this.base}${path}${options.query ? `?${options.query}` : ''}`;
    const answerTimeoutMs = this.options.answerTimeoutMs ?? DEFAULT_ANSWER_TIMEOUT_MS;
    const untilDeadline = (this.options.deadlineAt ?? Number.POSITIVE_INFINITY) - Date.now();
    const timeoutMs = Math.max(1, Math.min(answerTimeoutMs, untilDeadline));
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), timeoutMs);
    let response: Awaited<ReturnType<typeof fetch>>;
    let text: string;
    try {
      response = await fetch(url, {
        method,
        headers,
        body,
        dispatcher: this.options.dispatcher,
        redirect: 'manual',
        signal: abort.signal,
      });
      text = await this.#readBounded(response, `${method} ${path}`, abort);
    } catch (error) {
      if (error instanceof LiveStop) throw error;
      if (abort.signal.aborted && untilDeadline < answerTimeoutMs) {
        throw new LiveStop(
          'deadline',
          `${method} ${path}: the run's deadline (--deadline) has passed while ${this.host} was answering; the run stops here`,
        );
      }
      if (abort.signal.aborted) {
        throw new LiveStop(
          'too-slow',
          `${method} ${path}: ${this.host} gave no whole answer within ${timeoutMs} ms (--answer-timeout); the run stops here`,
        );
      }
      throw new LiveStop(
        'network',
        `cannot reach ${this.host}: ${this.scrubber.text(describeNetworkError(error))}`,
      );
    } finally {
      clearTimeout(timer);
    }
    this.rateLimits.note(method, path, response.status, response.headers);
    if (response.status === 429) {
      const after = response.headers.get('retry-after');
      throw new LiveStop(
        'rate-limited',
        `${this.host} answered 429 (too many requests)${after ? `, retry after ${after} s` : ''}; wait, then run again with a lower --rate`,
      );
    }
    const kept: Record<string, string> = {};
    for (const name of KEPT_HEADERS) {
      const value = response.headers.get(name);
      if (value !== null) kept[name] = value;
    }
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: response.status, headers: kept, body: parsed };
  }

  /** The body as text, read as it streams; past `maxAnswerBytes` (declared or read) the run stops. */
  async #readBounded(
    response: Awaited<ReturnType<typeof fetch>>,
    request: string,
    abort: AbortController,
  ): Promise<string> {
    const max = this.options.maxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
    const tooLarge = (what: string) => {
      abort.abort();
      return new LiveStop(
        'too-large',
        `${request}: ${this.host} answered ${what}, more than the ${max} bytes an answer may have (--max-answer-bytes); the run stops here`,
      );
    };
    const declared = Number(response.headers.get('content-length') ?? Number.NaN);
    if (declared > max) throw tooLarge(`${declared} bytes`);
    if (response.body === null) return '';
    const chunks: Uint8Array[] = [];
    let read = 0;
    for await (const chunk of response.body) {
      read += chunk.byteLength;
      if (read > max) throw tooLarge(`${read} bytes and more`);
      chunks.push(chunk);
    }
    return Buffer.concat(chunks).toString('utf8');
  }

  /** Sends a token call with the given body form, hash and scope; the answer keeps no token text. */
  async tokenCall(
    variant: {
      form?: boolean;
      upperCaseHash?: boolean;
      scope?: string;
      hash?: string;
      omitHash?: boolean;
      keyId?: string;
    } = {},
  ): Promise<{ answer: Answer; token: string | undefined }> {
    const { secret } = this.options.credentials;
    const keyId = variant.keyId ?? this.options.credentials.keyId;
    const content = randomUUID();
    const hex = computeHash(secret, content);
    const hash = variant.hash ?? (variant.upperCaseHash ? hex.toUpperCase() : hex);
    const fields = { scope: variant.scope ?? this.options.scope ?? 'docs_api', content };
    const headers: Record<string, string> = { 'x-key': keyId };
    if (!variant.omitHash) headers['x-hash'] = hash;
    this.scrubber.add(keyId, hash);
    const answer = await this.send('POST', '/api/v2/auth/client_token', {
      token: 'none',
      headers,
      ...(variant.form ? { form: fields } : { body: fields }),
    });
    const body = answer.body as Record<string, unknown> | undefined;
    const token = typeof body?.access_token === 'string' ? body.access_token : undefined;
    this.scrubber.add(token, typeof body?.refresh_token === 'string' ? body.refresh_token : undefined);
    // The probes see the answer's shape; the token texts are replaced by what they are.
    if (body !== undefined && typeof body === 'object' && body !== null) {
      const shown: Record<string, unknown> = { ...body };
      for (const key of ['access_token', 'refresh_token']) {
        if (typeof shown[key] === 'string') shown[key] = '(a token)';
      }
      answer.body = shown;
    }
    return { answer, token };
  }

  /** The access token, got once; a refused key stops the run. */
  token(): Promise<string> {
    this.#token ??= this.tokenCall().then(({ answer, token }) => {
      this.tokenAnswer = answer;
      if (token === undefined) {
        const body = answer.body as { message?: unknown } | undefined;
        // The tenant's words, with nothing secret it may have echoed.
        const said = typeof body?.message === 'string' ? `: "${this.scrubber.text(body.message)}"` : '';
        throw new LiveStop(
          answer.status === 401 || answer.status === 403 ? 'auth' : 'answer',
          `${this.host} refused the API key (status ${answer.status}${said}); check PASSPORTAL_KEY_ID and PASSPORTAL_SECRET`,
        );
      }
      return token;
    });
    return this.#token;
  }
}

/** A network error in words, with its code (ECONNREFUSED, ENOTFOUND, a certificate problem). */
function describeNetworkError(error: unknown): string {
  let cause: unknown = error;
  const parts: string[] = [];
  for (let depth = 0; cause instanceof Error && depth < 4; depth += 1) {
    const code = (cause as { code?: unknown }).code;
    parts.push(typeof code === 'string' ? `${cause.message} (${code})` : cause.message);
    cause = (cause as { cause?: unknown }).cause;
  }
  const text = parts.join(': ') || String(error);
  return /certificate|CERT/.test(text)
    ? `${text}; a company proxy that inspects TLS needs its CA in NODE_EXTRA_CA_CERTS`
    : text;
}
