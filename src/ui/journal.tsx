import { useEffect, useMemo, useState } from 'preact/hooks';
import { AdminError, admin, polling } from './api.js';
import { ErrorBox, Json } from './parts.js';
import type { Finding, JournalEntry, JournalPage, RequestsQuery } from './types.js';

/** How often the journal is asked for what arrived. */
const POLL_MS = 1000;
const PAGE = 100;

interface Filters {
  method: string;
  path: string;
  status: string;
  violations: boolean;
}

const METHODS = ['', 'GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

function queryOf(filters: Filters, offset: number): RequestsQuery {
  const q: RequestsQuery = { order: 'desc', limit: PAGE, offset };
  if (filters.method) q.method = filters.method;
  if (filters.path.trim()) q.path = filters.path.trim();
  // As typed (the query carries text): the fake names a status that is not one.
  if (filters.status.trim()) q.status = filters.status.trim() as unknown as number;
  if (filters.violations) q.violations = true;
  return q;
}

/** The query as a short text (values of repeated parameters joined). */
function queryText(query: Record<string, unknown>): string {
  const q = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    for (const v of Array.isArray(value) ? value : [value]) q.append(name, String(v ?? ''));
  }
  const text = decodeURIComponent(q.toString());
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

const timeOf = (iso: string): string => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleTimeString(undefined, { hour12: false });
};

/** How the request reached the fake, in words (the journal's `via`). */
const VIA_TEXT: Record<JournalEntry['via'], string> = {
  direct: 'direct',
  proxy: 'through the proxy',
  'proxy-session': 'through the proxy, to a session by its credentials',
  'key-session': 'at the root URL, to this session by its own key',
  'baggage-session': 'at the root URL, to this session by its baggage header',
};

/** `https://us-clover.passportalmsp.com`: where the client sent the request. */
const originText = (entry: JournalEntry): string => `${entry.scheme}://${entry.host ?? '(no Host)'}`;

/** The origin the client used, and how the request arrived when not straight to the port. */
function Arrival({ entry }: { entry: JournalEntry }) {
  return (
    <span class="arrival">
      <code class="origin">{originText(entry)}</code>
      {entry.via === 'direct' ? null : (
        <span class={`via via-${entry.via}`} title={VIA_TEXT[entry.via]}>
          {entry.via}
        </span>
      )}
    </span>
  );
}

function statusClass(entry: JournalEntry): string {
  if (entry.status === undefined) return 'status none';
  if (entry.status >= 500) return 'status s5';
  if (entry.status >= 400) return 'status s4';
  return 'status s2';
}

export function Findings({ kind, items }: { kind: 'violation' | 'notice'; items: Finding[] }) {
  if (items.length === 0) return null;
  return (
    <ul class={`findings ${kind}s`}>
      {items.map((f) => (
        <li class={f.expected ? 'expected' : kind}>
          <span class="tag">{f.expected ? 'expected' : kind}</span> <code class="location">{f.location}</code>{' '}
          {f.message}
        </li>
      ))}
    </ul>
  );
}

function Detail({ id, onClose }: { id: number; onClose: () => void }) {
  const [entry, setEntry] = useState<JournalEntry | undefined>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    setEntry(undefined);
    setError(undefined);
    admin.request(id).then(setEntry, setError);
  }, [id]);
  return (
    <section class="detail" aria-label="request detail">
      <div class="detail-head">
        <h3>
          Request #{id}
          {entry ? (
            <span>
              {' '}
              <span class="method">{entry.method}</span> <code>{entry.path}</code>
            </span>
          ) : null}
        </h3>
        <button type="button" class="plain" onClick={onClose}>
          Close
        </button>
      </div>
      <ErrorBox error={error} />
      {entry ? (
        <div>
          <dl class="facts">
            <dt>Time</dt>
            <dd>{entry.time}</dd>
            <dt>Status</dt>
            <dd class="detail-status">
              {entry.status ?? (entry.dropped ? 'dropped' : entry.aborted ? 'aborted' : '-')}
            </dd>
            <dt>Duration</dt>
            <dd>{entry.durationMs} ms</dd>
            <dt>Sent to</dt>
            <dd class="detail-origin">
              <code>{originText(entry)}</code>
            </dd>
            <dt>Arrived</dt>
            <dd class="detail-via">
              <code>{entry.via}</code> <span class="muted">({VIA_TEXT[entry.via]})</span>
            </dd>
            {entry.operationId ? (
              <>
                <dt>Operation</dt>
                <dd>
                  <code>{entry.operationId}</code>
                </dd>
              </>
            ) : null}
            {entry.fault ? (
              <>
                <dt>Fault</dt>
                <dd>
                  <code>{entry.fault}</code>
                </dd>
              </>
            ) : null}
          </dl>
          <Findings kind="violation" items={entry.violations} />
          <Findings kind="notice" items={entry.notices} />
          <h4>Query</h4>
          <Json value={entry.query} />
          <h4>Headers</h4>
          <Json value={entry.headers} />
          <h4>Body</h4>
          {entry.body === undefined ? <p class="muted">none</p> : <Json value={entry.body} />}
          <h4>Response</h4>
          {entry.response === undefined ? <p class="muted">none</p> : <Json value={entry.response} />}
        </div>
      ) : null}
    </section>
  );
}

export function Journal() {
  const [filters, setFilters] = useState<Filters>({ method: '', path: '', status: '', violations: false });
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<JournalPage | undefined>();
  const [error, setError] = useState<unknown>();
  const [open, setOpen] = useState<number | undefined>();
  const [live, setLive] = useState(true);
  const query = useMemo(() => queryOf(filters, offset), [filters, offset]);

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const next = await polling.requests(query);
        if (stopped) return;
        setPage(next);
        setError(undefined);
      } catch (e) {
        if (stopped) return;
        setError(e);
        // A bad filter is the user's to fix; polling again would only repeat the refusal.
        if (e instanceof AdminError && e.status < 500) return;
      }
      if (live && !stopped) timer = setTimeout(poll, POLL_MS);
    };
    void poll();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [query, live]);

  const set = (patch: Partial<Filters>) => {
    setOffset(0);
    setFilters({ ...filters, ...patch });
  };
  const clear = async () => {
    try {
      await admin.clearRequests();
      setOpen(undefined);
      setPage({ count: 0, requests: [] });
    } catch (e) {
      setError(e);
    }
  };

  return (
    <div class="journal">
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <label>
          Method
          <select
            name="method"
            value={filters.method}
            onChange={(e) => set({ method: (e.target as HTMLSelectElement).value })}
          >
            {METHODS.map((m) => (
              <option value={m}>{m || 'any'}</option>
            ))}
          </select>
        </label>
        <label>
          Path
          <input
            name="path"
            placeholder="/api/v2/documents*"
            value={filters.path}
            onInput={(e) => set({ path: (e.target as HTMLInputElement).value })}
          />
        </label>
        <label>
          Status
          <input
            name="status"
            size={5}
            placeholder="any"
            value={filters.status}
            onInput={(e) => set({ status: (e.target as HTMLInputElement).value })}
          />
        </label>
        <label class="check">
          <input
            type="checkbox"
            name="violations"
            checked={filters.violations}
            onChange={(e) => set({ violations: (e.target as HTMLInputElement).checked })}
          />
          Only violations
        </label>
        <label class="check">
          <input
            type="checkbox"
            name="live"
            checked={live}
            onChange={(e) => setLive((e.target as HTMLInputElement).checked)}
          />
          Live
        </label>
        <span class="spacer" />
        <button type="button" class="plain" onClick={clear}>
          Clear journal
        </button>
      </form>
      <ErrorBox error={error} />
      <div class={open === undefined ? 'split' : 'split with-detail'}>
        <div class="list">
          <p class="muted count">
            {page ? `${page.count} request${page.count === 1 ? '' : 's'}` : 'Loading…'}
            {page && page.count > PAGE ? ` (showing ${offset + 1}–${offset + page.requests.length})` : ''}
          </p>
          <table class="requests">
            <thead>
              <tr>
                <th>#</th>
                <th>time</th>
                <th>method</th>
                <th>path</th>
                <th>status</th>
                <th>ms</th>
              </tr>
            </thead>
            <tbody>
              {page?.requests.map((entry) => (
                <tr
                  class={`${open === entry.id ? 'selected ' : ''}${entry.violations.some((v) => !v.expected) ? 'violating' : ''}`}
                  data-id={entry.id}
                  onClick={() => setOpen(entry.id)}
                >
                  <td class="muted">{entry.id}</td>
                  <td class="muted">{timeOf(entry.time)}</td>
                  <td class="method">{entry.method}</td>
                  <td class="path">
                    <code>{entry.path}</code>
                    {Object.keys(entry.query).length ? (
                      <span class="muted query">?{queryText(entry.query)}</span>
                    ) : null}
                    <div class="sent-to">
                      <Arrival entry={entry} />
                    </div>
                    {entry.violations.map((f) => (
                      // A violation the suite declared beforehand is expected: shown, never as a failure.
                      <div
                        class={`inline-finding ${f.expected ? 'expected' : 'violation'}`}
                        title={f.message}
                      >
                        <span class="tag">{f.expected ? 'expected' : 'violation'}</span>{' '}
                        <code class="location">{f.location}</code> {f.message}
                      </div>
                    ))}
                    {entry.notices.map((f) => (
                      <div class="inline-finding notice" title={f.message}>
                        <span class="tag">notice</span> <code class="location">{f.location}</code> {f.message}
                      </div>
                    ))}
                  </td>
                  <td>
                    <span class={statusClass(entry)}>{entry.status ?? (entry.dropped ? 'drop' : '-')}</span>
                  </td>
                  <td class="muted">{Math.round(entry.durationMs * 10) / 10}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {page && page.count > PAGE ? (
            <div class="pager">
              <button
                type="button"
                disabled={offset === 0}
                onClick={() => setOffset(Math.max(0, offset - PAGE))}
              >
                Newer
              </button>
              <button
                type="button"
                disabled={offset + PAGE >= page.count}
                onClick={() => setOffset(offset + PAGE)}
              >
                Older
              </button>
            </div>
          ) : null}
        </div>
        {open === undefined ? null : <Detail id={open} onClose={() => setOpen(undefined)} />}
      </div>
    </div>
  );
}
