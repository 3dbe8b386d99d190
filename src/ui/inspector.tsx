import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { admin, getToken, onUnauthorized, sessionId, setToken } from './api.js';
import { Controls } from './controls.js';
import { CoverageView } from './coverage.js';
import { Journal } from './journal.js';
import { KeysView } from './keys.js';
import { StateView } from './state-view.js';

const TABS = [
  { id: 'journal', label: 'Journal' },
  { id: 'state', label: 'State' },
  { id: 'keys', label: 'API keys' },
  { id: 'coverage', label: 'Coverage' },
  { id: 'controls', label: 'Controls' },
] as const;
type TabId = (typeof TABS)[number]['id'];

const tabFromHash = (): TabId => {
  const id = location.hash.slice(1);
  return TABS.some((t) => t.id === id) ? (id as TabId) : 'journal';
};

/** Asks for the admin token (the fake was started with ADMIN_TOKEN); kept for this tab only. */
function TokenPrompt({ onDone }: { onDone: () => void }) {
  const [value, setValue] = useState('');
  const [wrong, setWrong] = useState(getToken() !== undefined);
  return (
    <div class="overlay">
      <form
        class="prompt"
        aria-label="admin token"
        onSubmit={async (e) => {
          e.preventDefault();
          setToken(value.trim());
          try {
            await admin.clock();
            onDone();
          } catch (error) {
            // 403: a tenant's token (--tenants), taken; the root is the operator's, and the
            // panels show what the tenant may see (its own sessions).
            if ((error as { status?: number }).status === 403) {
              onDone();
              return;
            }
            setToken(undefined);
            setWrong(true);
          }
        }}
      >
        <h2>Admin token</h2>
        <p>
          This fake protects its admin API with <code>ADMIN_TOKEN</code>. Enter it, or your team's token, to
          use the inspector; it is kept in this tab only and sent as the bearer header.
        </p>
        {wrong ? (
          <p class="error" role="alert">
            That token was refused.
          </p>
        ) : null}
        <input
          type="password"
          name="admin-token"
          aria-label="admin token value"
          // biome-ignore lint/a11y/noAutofocus: the dialog's one field, asked for before anything else
          autoFocus
          autocomplete="off"
          value={value}
          onInput={(e) => setValue((e.target as HTMLInputElement).value)}
        />
        <button type="submit">Continue</button>
      </form>
    </div>
  );
}

function App() {
  const [tab, setTab] = useState<TabId>(tabFromHash);
  const [needToken, setNeedToken] = useState(false);
  const [round, setRound] = useState(0);
  useEffect(() => onUnauthorized(() => setNeedToken(true)), []);
  useEffect(() => {
    const listener = () => setTab(tabFromHash());
    addEventListener('hashchange', listener);
    return () => removeEventListener('hashchange', listener);
  }, []);
  useEffect(() => {
    // One cheap call at start: a 401 shows the prompt before any panel asks.
    admin.clock().catch(() => undefined);
  }, [round]);
  return (
    <div class="app">
      <header class="top">
        <a class="brand" href="/">
          Passportal Documents API fake
        </a>
        <span class="badge instance">{sessionId ? `session ${sessionId}` : 'root instance'}</span>
        <nav class="tabs">
          {TABS.map((t) => (
            <a
              href={`#${t.id}`}
              class={tab === t.id ? 'tab active' : 'tab'}
              aria-current={tab === t.id ? 'page' : undefined}
            >
              {t.label}
            </a>
          ))}
        </nav>
        <span class="spacer" />
        <a class="plain-link" href="/docs">
          API docs
        </a>
        {getToken() ? (
          <button
            type="button"
            class="plain"
            onClick={() => {
              setToken(undefined);
              setNeedToken(true);
            }}
          >
            Forget token
          </button>
        ) : null}
      </header>
      <main key={round}>
        {tab === 'journal' ? <Journal /> : null}
        {tab === 'state' ? <StateView /> : null}
        {tab === 'keys' ? <KeysView /> : null}
        {tab === 'coverage' ? <CoverageView /> : null}
        {tab === 'controls' ? <Controls /> : null}
      </main>
      {needToken ? (
        <TokenPrompt
          onDone={() => {
            setNeedToken(false);
            setRound((r) => r + 1);
          }}
        />
      ) : null}
    </div>
  );
}

const root = document.getElementById('app');
if (root) render(<App />, root);
