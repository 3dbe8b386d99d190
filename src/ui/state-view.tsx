import { useEffect, useMemo, useState } from 'preact/hooks';
import { admin } from './api.js';
import { ErrorBox, Json, Panel } from './parts.js';
import type { DocumentRow, State } from './types.js';

/** Documents shown at once; the search narrows the rest. */
const SHOWN_DOCUMENTS = 200;

export function useAdminState(): { state: State | undefined; error: unknown; reload: () => void } {
  const [state, setState] = useState<State | undefined>();
  const [error, setError] = useState<unknown>();
  const [round, setRound] = useState(0);
  useEffect(() => {
    admin.state().then((s) => {
      setState(s);
      setError(undefined);
    }, setError);
  }, [round]);
  return { state, error, reload: () => setRound((r) => r + 1) };
}

function matches(doc: DocumentRow, needle: string): boolean {
  if (needle === '') return true;
  if (String(doc.id) === needle) return true;
  const text = `${doc.label} ${doc.description} ${doc.customId}`.toLowerCase();
  return text.includes(needle) || JSON.stringify(doc.details).toLowerCase().includes(needle);
}

function Documents({ state }: { state: State }) {
  const [search, setSearch] = useState('');
  const [open, setOpen] = useState<DocumentRow | undefined>();
  const templates = useMemo(() => new Map(state.templates.map((t) => [t.id, t])), [state]);
  const clients = useMemo(() => new Map(state.clients.map((c) => [c.id, c])), [state]);
  const needle = search.trim().toLowerCase();
  const found = useMemo(() => state.documents.filter((d) => matches(d, needle)), [state, needle]);
  return (
    <Panel title={`Documents (${state.documents.length})`}>
      <div class="filters">
        <label>
          Search
          <input
            name="document-search"
            type="search"
            placeholder="label, description, id, detail text"
            value={search}
            onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
          />
        </label>
        <span class="muted">
          {found.length} match{found.length === 1 ? '' : 'es'}
          {found.length > SHOWN_DOCUMENTS ? `, first ${SHOWN_DOCUMENTS} shown` : ''}
        </span>
      </div>
      <div class={open ? 'split with-detail' : 'split'}>
        <div class="list">
          <table class="documents">
            <thead>
              <tr>
                <th>id</th>
                <th>label</th>
                <th>template</th>
                <th>client</th>
                <th>org</th>
                <th>last modified</th>
              </tr>
            </thead>
            <tbody>
              {found.slice(0, SHOWN_DOCUMENTS).map((d) => (
                <tr class={open?.id === d.id ? 'selected' : ''} onClick={() => setOpen(d)}>
                  <td class="muted">{d.id}</td>
                  <td>{d.label}</td>
                  <td>{templates.get(d.templateId)?.name ?? d.templateId}</td>
                  <td>{clients.get(d.client_id)?.name ?? d.client_id}</td>
                  <td>{d.organization_id}</td>
                  <td class="muted">{d.last_modified}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {open ? (
          <section class="detail" aria-label="document detail">
            <div class="detail-head">
              <h3>
                Document #{open.id}: {open.label}
              </h3>
              <button type="button" class="plain" onClick={() => setOpen(undefined)}>
                Close
              </button>
            </div>
            <p>{open.description}</p>
            <Json value={open} />
          </section>
        ) : null}
      </div>
    </Panel>
  );
}

export function StateView() {
  const { state, error, reload } = useAdminState();
  const [template, setTemplate] = useState<number | undefined>();
  return (
    <div>
      <div class="toolbar">
        <button type="button" onClick={reload}>
          Reload
        </button>
      </div>
      <ErrorBox error={error} />
      {state ? (
        <div>
          <div class="columns">
            <Panel title={`Organizations (${state.organizations.length})`}>
              <table>
                <thead>
                  <tr>
                    <th>id</th>
                    <th>name</th>
                  </tr>
                </thead>
                <tbody>
                  {state.organizations.map((o) => (
                    <tr>
                      <td class="muted">{o.id}</td>
                      <td>{o.name}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Panel>
            <Panel title={`Clients (${state.clients.length})`}>
              <table>
                <thead>
                  <tr>
                    <th>id</th>
                    <th>name</th>
                    <th>org</th>
                  </tr>
                </thead>
                <tbody>
                  {state.clients.map((c) => (
                    <tr>
                      <td class="muted">{c.id}</td>
                      <td>{c.name}</td>
                      <td>{c.organizationId}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Panel>
          </div>
          <Panel title={`Templates (${state.templates.length})`}>
            <table>
              <thead>
                <tr>
                  <th>id</th>
                  <th>name</th>
                  <th>type</th>
                  <th>fields</th>
                </tr>
              </thead>
              <tbody>
                {state.templates.map((t) => (
                  <tr onClick={() => setTemplate(template === t.id ? undefined : t.id)}>
                    <td class="muted">{t.id}</td>
                    <td>{t.name}</td>
                    <td>
                      <code>{t.type}</code>
                    </td>
                    <td>
                      {template === t.id ? (
                        <ul class="fields">
                          {t.fields.map((f) => (
                            <li>
                              <code>{f.key}</code> {f.name}
                              {f.description ? <span class="muted"> — {f.description}</span> : null}
                            </li>
                          ))}
                        </ul>
                      ) : (
                        <span class="muted">
                          {t.fields.length} field{t.fields.length === 1 ? '' : 's'} (click to show)
                        </span>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Panel>
          <Documents state={state} />
        </div>
      ) : null}
    </div>
  );
}
