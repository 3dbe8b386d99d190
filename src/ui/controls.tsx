import { useEffect, useState } from 'preact/hooks';
import { admin, sessionId } from './api.js';
import { ErrorBox, Panel } from './parts.js';
import type { Clock, Fault, FaultInput, FixtureSet, Session, Settings as SettingsValues } from './types.js';

/** Runs an admin call, keeping its outcome (a line of text, or the refusal) for the panel. */
function useAction(): {
  run: (work: () => Promise<string | undefined>) => Promise<void>;
  message: string | undefined;
  error: unknown;
} {
  const [message, setMessage] = useState<string | undefined>();
  const [error, setError] = useState<unknown>();
  return {
    message,
    error,
    run: async (work) => {
      setMessage(undefined);
      setError(undefined);
      try {
        setMessage(await work());
      } catch (e) {
        setError(e);
      }
    },
  };
}

/** A row's delete button: `remove` (an admin call), then the list read again. */
function DeleteButton(props: {
  label: string;
  run: ReturnType<typeof useAction>['run'];
  remove: () => Promise<unknown>;
  reload: () => Promise<unknown>;
  done: string;
}) {
  return (
    <button
      type="button"
      class="plain"
      onClick={() =>
        props.run(async () => {
          await props.remove();
          await props.reload();
          return props.done;
        })
      }
    >
      {props.label}
    </button>
  );
}

function Outcome({ message, error }: { message: string | undefined; error: unknown }) {
  return (
    <div>
      {message ? (
        <p class="ok" role="status">
          {message}
        </p>
      ) : null}
      <ErrorBox error={error} />
    </div>
  );
}

function Reset() {
  const action = useAction();
  return (
    <Panel title="Reset and tokens">
      <p class="muted">Reset returns the state to the loaded fixtures (tokens clients hold stay valid).</p>
      <div class="toolbar">
        <button
          type="button"
          name="reset"
          onClick={() =>
            action.run(async () => {
              await admin.reset();
              return 'State reset to the loaded fixtures.';
            })
          }
        >
          Reset state
        </button>
        <button
          type="button"
          name="revoke"
          onClick={() =>
            action.run(async () => {
              const revoked = await admin.revokeTokens();
              return `${revoked} token${revoked === 1 ? '' : 's'} revoked.`;
            })
          }
        >
          Revoke all tokens
        </button>
      </div>
      <Outcome {...action} />
    </Panel>
  );
}

function Fixtures() {
  const action = useAction();
  const [over, setOver] = useState(false);
  const load = (file: File) =>
    action.run(async () => {
      const text = await file.text();
      let fixtures: FixtureSet;
      try {
        fixtures = JSON.parse(text) as FixtureSet;
      } catch (e) {
        throw new Error(`${file.name} is not JSON: ${(e as Error).message}`);
      }
      const documents = await admin.load(fixtures);
      return `Loaded ${file.name}: ${documents} documents. It is the new reset point.`;
    });
  return (
    <Panel title="Load a fixture file">
      <label
        class={over ? 'drop over' : 'drop'}
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          const file = e.dataTransfer?.files[0];
          if (file) void load(file);
        }}
      >
        Drop a fixture set (JSON) here, or choose one
        <input
          type="file"
          name="fixtures"
          accept="application/json,.json"
          onChange={(e) => {
            const input = e.target as HTMLInputElement;
            const file = input.files?.[0];
            if (file) void load(file);
            input.value = '';
          }}
        />
      </label>
      <Outcome {...action} />
    </Panel>
  );
}

function Faults() {
  const [faults, setFaults] = useState<Fault[]>([]);
  const action = useAction();
  const [form, setForm] = useState({ method: '', path: '', status: '503', body: '', delayMs: '', times: '' });
  const reload = () =>
    admin.faults().then(
      (list) => setFaults(list),
      () => undefined,
    );
  useEffect(() => {
    void reload();
  }, []);
  const field = (name: keyof typeof form, label: string, placeholder = '') => (
    <label>
      {label}
      <input
        name={`fault-${name}`}
        placeholder={placeholder}
        value={form[name]}
        onInput={(e) => setForm({ ...form, [name]: (e.target as HTMLInputElement).value })}
      />
    </label>
  );
  const add = () =>
    action.run(async () => {
      // As typed: the fake names what is wrong with it.
      const input: Record<string, unknown> = {};
      if (form.method.trim()) input.method = form.method.trim();
      if (form.path.trim()) input.path = form.path.trim();
      if (form.status.trim()) input.status = Number(form.status);
      if (form.delayMs.trim()) input.delayMs = Number(form.delayMs);
      if (form.times.trim()) input.times = Number(form.times);
      if (form.body.trim()) {
        try {
          input.body = JSON.parse(form.body);
        } catch {
          input.body = form.body;
        }
      }
      const id = await admin.addFault(input as FaultInput);
      await reload();
      return `Fault ${id} added.`;
    });
  return (
    <Panel title="Faults">
      <div class="form-grid">
        {field('method', 'Method', 'any')}
        {field('path', 'Path', '/api/v2/documents*')}
        {field('status', 'Status', '503')}
        {field('delayMs', 'Delay (ms)', '0')}
        {field('times', 'Times', 'always')}
        {field('body', 'Body (JSON or text)', '{"success":false}')}
      </div>
      <div class="toolbar">
        <button type="button" name="add-fault" onClick={add}>
          Add fault
        </button>
        <button
          type="button"
          class="plain"
          onClick={() =>
            action.run(async () => {
              await admin.clearFaults();
              await reload();
              return 'Every fault removed.';
            })
          }
        >
          Remove all
        </button>
      </div>
      <Outcome {...action} />
      <table class="faults">
        <thead>
          <tr>
            <th>id</th>
            <th>match</th>
            <th>answer</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {faults.length === 0 ? (
            <tr>
              <td colSpan={4} class="muted">
                No faults: every request gets the fake's own answer.
              </td>
            </tr>
          ) : null}
          {faults.map((f) => (
            <tr>
              <td>
                <code>{f.id}</code>
              </td>
              <td>
                {f.method ?? 'any method'} <code>{f.path ?? 'any path'}</code>
                {f.times === undefined ? '' : ` (${f.times} more)`}
              </td>
              <td>
                {f.drop ? 'drop connection' : (f.status ?? '')}
                {f.delayMs ? ` after ${f.delayMs} ms` : ''}
              </td>
              <td>
                <DeleteButton
                  label="Remove"
                  run={action.run}
                  remove={() => admin.removeFault(f.id)}
                  reload={reload}
                  done={`Fault ${f.id} removed.`}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Panel>
  );
}

function ClockPanel() {
  const [clock, setClock] = useState<Clock | undefined>();
  const [seconds, setSeconds] = useState('3301');
  const action = useAction();
  useEffect(() => {
    admin.clock().then(setClock, () => undefined);
  }, []);
  return (
    <Panel title="Clock">
      <p>
        Now: <strong class="clock-now">{clock ? new Date(clock.now * 1000).toISOString() : '…'}</strong>
        {clock ? <span class="muted"> (offset {clock.offsetSeconds} s)</span> : null}
      </p>
      <div class="toolbar">
        <label>
          Advance by (s)
          <input
            name="advance"
            size={8}
            value={seconds}
            onInput={(e) => setSeconds((e.target as HTMLInputElement).value)}
          />
        </label>
        <button
          type="button"
          onClick={() =>
            action.run(async () => {
              const next = await admin.advanceClock(Number(seconds));
              setClock(next);
              return `Clock advanced by ${seconds} s.`;
            })
          }
        >
          Advance
        </button>
      </div>
      <Outcome {...action} />
    </Panel>
  );
}

function Settings() {
  const [text, setText] = useState('');
  const action = useAction();
  const [loadError, setLoadError] = useState<unknown>();
  useEffect(() => {
    admin.settings().then((s) => setText(JSON.stringify(s, null, 2)), setLoadError);
  }, []);
  return (
    <Panel title="Settings">
      <ErrorBox error={loadError} />
      <textarea
        name="settings"
        rows={14}
        value={text}
        onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
      />
      <div class="toolbar">
        <button
          type="button"
          onClick={() =>
            action.run(async () => {
              let body: unknown;
              try {
                body = JSON.parse(text);
              } catch (e) {
                throw new Error(`settings are not JSON: ${(e as Error).message}`);
              }
              // As typed: the fake names a wrong key or value.
              const saved = await admin.settings(body as Partial<SettingsValues>);
              setText(JSON.stringify(saved, null, 2));
              return 'Settings saved.';
            })
          }
        >
          Save settings
        </button>
      </div>
      <Outcome {...action} />
    </Panel>
  );
}

function Sessions() {
  const [sessions, setSessions] = useState<Session[]>([]);
  const [keep, setKeep] = useState(false);
  const [ownKeys, setOwnKeys] = useState(false);
  const action = useAction();
  const reload = () =>
    admin.sessions().then(
      (list) => setSessions(list),
      () => undefined,
    );
  useEffect(() => {
    void reload();
  }, []);
  return (
    <Panel title="Sessions">
      {sessionId === undefined ? (
        <div class="toolbar">
          <button
            type="button"
            name="create-session"
            onClick={() =>
              action.run(async () => {
                const created = await admin.createSession({
                  ...(keep ? { expires: false } : {}),
                  ...(ownKeys ? { keys: 'own' } : {}),
                });
                await reload();
                // The secrets are not shown here: the session's own inspector lists its keys.
                return ownKeys
                  ? `Session ${created.id} created with keys of its own (see its API keys tab).`
                  : `Session ${created.id} created.`;
              })
            }
          >
            Create session
          </button>
          <label class="check">
            <input
              type="checkbox"
              checked={keep}
              onChange={(e) => setKeep((e.target as HTMLInputElement).checked)}
            />
            never expires
          </label>
          <label class="check" title="random API keys that reach the session at the root URL too">
            <input
              type="checkbox"
              name="own-keys"
              checked={ownKeys}
              onChange={(e) => setOwnKeys((e.target as HTMLInputElement).checked)}
            />
            own keys
          </label>
        </div>
      ) : (
        <p class="muted">This is session {sessionId}; create sessions from the root inspector.</p>
      )}
      <Outcome {...action} />
      <table class="sessions">
        <thead>
          <tr>
            <th>id</th>
            <th>base URL</th>
            <th>last used</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {sessions.length === 0 ? (
            <tr>
              <td colSpan={4} class="muted">
                No sessions.
              </td>
            </tr>
          ) : null}
          {sessions.map((s) => (
            <tr>
              <td>
                <a href={`${new URL(s.baseUrl).pathname}/__admin/ui`}>
                  <code>{s.id}</code>
                </a>
                {s.expires ? null : <span class="muted"> (kept)</span>}
                {s.ownKeyIds ? (
                  <div class="own-keys">
                    <span class="via via-key-session">own keys</span>
                    {s.ownKeyIds.map((id) => (
                      <code class="key-id" title={id}>
                        {id.slice(0, 8)}…
                      </code>
                    ))}
                  </div>
                ) : null}
              </td>
              <td>
                <code>{s.baseUrl}</code>
              </td>
              <td class="muted">{s.lastUsedAt}</td>
              <td>
                <DeleteButton
                  label="Delete"
                  run={action.run}
                  remove={() => admin.deleteSession(s.id)}
                  reload={reload}
                  done={`Session ${s.id} deleted.`}
                />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Panel>
  );
}

export function Controls() {
  return (
    <div class="controls">
      <div class="columns">
        <Reset />
        <ClockPanel />
      </div>
      <Fixtures />
      <Faults />
      <div class="columns">
        <Sessions />
        <Settings />
      </div>
    </div>
  );
}
