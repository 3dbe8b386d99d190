import { useEffect, useState } from 'preact/hooks';
import { basePath, hmacHex } from './api.js';
import { ErrorBox, Panel } from './parts.js';
import { useAdminState } from './state-view.js';
import type { ApiKey } from './types.js';

const quote = (text: string): string => `'${text.replace(/'/g, `'\\''`)}'`;

function curlFor(key: ApiKey, content: string, hash: string): string {
  const body = JSON.stringify({ scope: 'docs_api', content });
  return [
    `curl -s -X POST ${quote(`${location.origin}${basePath}/api/v2/auth/client_token`)} \\`,
    `  -H 'content-type: application/json' \\`,
    `  -H ${quote(`x-key: ${key.keyId}`)} \\`,
    `  -H ${quote(`x-hash: ${hash}`)} \\`,
    `  -d ${quote(body)}`,
  ].join('\n');
}

/** Content in, `x-hash` and a ready `curl` out: HMAC-SHA256 with WebCrypto, in the browser. */
function HashCalculator({ keys }: { keys: ApiKey[] }) {
  const [keyId, setKeyId] = useState(keys[0]?.keyId ?? '');
  const [content, setContent] = useState('api-content-hash');
  const [hash, setHash] = useState<string | undefined>();
  const [unavailable, setUnavailable] = useState(false);
  const key = keys.find((k) => k.keyId === keyId) ?? keys[0];
  useEffect(() => {
    if (!key) return;
    let current = true;
    hmacHex(key.secret, content).then((h) => {
      if (!current) return;
      setHash(h);
      setUnavailable(h === undefined);
    });
    return () => {
      current = false;
    };
  }, [key, content]);
  if (!key) return <p class="muted">This fixture set has no API keys.</p>;
  return (
    <Panel title="Hash calculator">
      <div class="form-grid">
        <label>
          Key
          <select
            name="hash-key"
            value={key.keyId}
            onChange={(e) => setKeyId((e.target as HTMLSelectElement).value)}
          >
            {keys.map((k) => (
              <option value={k.keyId}>
                org {k.organizationId}: {k.keyId.slice(0, 16)}…
              </option>
            ))}
          </select>
        </label>
        <label>
          Content
          <input
            name="hash-content"
            value={content}
            onInput={(e) => setContent((e.target as HTMLInputElement).value)}
          />
        </label>
      </div>
      {unavailable ? (
        <p class="error">
          This page is not a secure context (open it on localhost or 127.0.0.1), so WebCrypto is not
          available. With a shell: <code>printf '%s' CONTENT | openssl dgst -sha256 -hmac SECRET</code>
        </p>
      ) : (
        <div>
          <p>
            <code>x-hash</code>: <code class="hash-output">{hash ?? '…'}</code>
          </p>
          {hash ? <pre class="curl-output">{curlFor(key, content, hash)}</pre> : null}
        </div>
      )}
    </Panel>
  );
}

export function KeysView() {
  const { state, error } = useAdminState();
  return (
    <div>
      <ErrorBox error={error} />
      {state ? (
        <div>
          <Panel title={`API keys (${state.apiKeys.length})`}>
            <table class="keys">
              <thead>
                <tr>
                  <th>org</th>
                  <th>key ID (x-key)</th>
                  <th>secret</th>
                </tr>
              </thead>
              <tbody>
                {state.apiKeys.map((k) => (
                  <tr>
                    <td>{k.organizationId}</td>
                    <td>
                      <code>{k.keyId}</code>
                    </td>
                    <td>
                      <code>{k.secret}</code>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Panel>
          <HashCalculator keys={state.apiKeys} />
        </div>
      ) : null}
    </div>
  );
}
