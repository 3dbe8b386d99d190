import { useEffect, useState } from 'preact/hooks';
import { admin } from './api.js';
import { ErrorBox, Json, Panel } from './parts.js';
import type { JournalEntry, Report } from './types.js';

/**
 * The coverage tab: the instance's report (`GET /__admin/report`): the verdict line, the behaviour
 * map by group (each exercised behaviour with the requests that exercised it, which open here),
 * and the never-exercised list, most likely to break a client first, each with how to exercise it.
 */

const GROUPS: Array<{ id: Report['behaviours'][number]['group']; title: string }> = [
  { id: 'vendor', title: 'Behaviours of the service' },
  { id: 'error', title: 'Error kinds' },
  { id: 'notice', title: 'Notices' },
  { id: 'fault', title: 'Injected faults' },
];

/** One request of the journal, opened from a behaviour's list. */
function RequestDetail({ id }: { id: number }) {
  const [entry, setEntry] = useState<JournalEntry | undefined>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    admin.request(id).then(setEntry, setError);
  }, [id]);
  if (error) return <ErrorBox error={error} />;
  if (!entry) return <p class="muted">Loading request #{id}…</p>;
  return (
    <section class="request-detail" aria-label={`request ${id}`}>
      <p>
        <code>
          #{entry.id} {entry.method} {entry.path} → {entry.status ?? 'no answer'}
        </code>
      </p>
      <Json value={{ behaviours: entry.behaviours, query: entry.query, response: entry.response }} />
    </section>
  );
}

/** `1 request`, `2 requests`. */
const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

export function CoverageView() {
  const [report, setReport] = useState<Report | undefined>();
  const [error, setError] = useState<unknown>();
  const [open, setOpen] = useState<number | undefined>();
  const load = () => admin.report().then(setReport, setError);
  useEffect(() => {
    void load();
  }, []);
  if (error) return <ErrorBox error={error} />;
  if (!report) return <p class="muted">Loading the report…</p>;
  const { coverage, requests, summary } = report;
  return (
    <div class="coverage">
      <Panel title="Verdict">
        <p class="verdict">
          {summary.violatingRequests === 0
            ? 'No contract violations'
            : `${plural(summary.violatingRequests, 'request')} broke the contract`}
          {summary.unmetExpectations > 0
            ? `; ${plural(summary.unmetExpectations, 'declared violation')} never came`
            : ''}
          {summary.expectedViolations > 0
            ? `; ${plural(summary.expectedViolations, 'request')} with expected violations`
            : ''}
          {`; ${summary.requestsWithNotices} with notices; behaviours exercised `}
          <strong class="coverage-percent">
            {coverage.behaviours.exercised}/{coverage.behaviours.total} ({coverage.behaviours.percent}%)
          </strong>
          {`; operations ${coverage.operations.exercised}/${coverage.operations.total}.`}
        </p>
        <p class="muted">
          {plural(requests.total, 'request')} since {new Date(report.since).toLocaleString()}
          {requests.noLongerHeld > 0 ? `; the journal no longer holds ${requests.noLongerHeld} of them` : ''}.
          The report survives resets; the command <code>passportal-docs-fake report</code> writes it for CI.
        </p>
        <button type="button" onClick={() => void load()}>
          Refresh
        </button>
      </Panel>
      <Panel title="Never exercised (most likely to break a client first)">
        {report.neverExercised.length === 0 ? (
          <p>Every behaviour was exercised.</p>
        ) : (
          <table class="never">
            <thead>
              <tr>
                <th>behaviour</th>
                <th>likelihood</th>
                <th>how to exercise it</th>
              </tr>
            </thead>
            <tbody>
              {report.neverExercised.map((n) => (
                <tr data-behaviour={n.id}>
                  <td>
                    <code>{n.id}</code>
                    <div class="muted">{n.meaning}</div>
                  </td>
                  <td>{n.likelihood}/5</td>
                  <td>{n.how}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Panel>
      {GROUPS.map((g) => (
        <Panel title={g.title}>
          <table class="behaviours">
            <tbody>
              {report.behaviours
                .filter((b) => b.group === g.id)
                .map((b) => (
                  <tr class={b.count > 0 ? 'exercised' : 'never'} data-behaviour={b.id}>
                    <td>
                      <code>{b.id}</code>
                    </td>
                    <td>{b.count > 0 ? `${b.count}×` : 'never'}</td>
                    <td>
                      {b.requests.map((id) => (
                        <button
                          type="button"
                          class={open === id ? 'plain request-link selected' : 'plain request-link'}
                          onClick={() => setOpen(open === id ? undefined : id)}
                        >
                          #{id}
                        </button>
                      ))}
                    </td>
                  </tr>
                ))}
            </tbody>
          </table>
        </Panel>
      ))}
      {open === undefined ? null : (
        <Panel title={`Request #${open}`}>
          <RequestDetail id={open} />
        </Panel>
      )}
    </div>
  );
}
