import type { ComponentChildren } from 'preact';
import { AdminError } from './api.js';

/** A value as indented JSON (text kept as it is). */
export function Json({ value }: { value: unknown }) {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return <pre class="json">{text}</pre>;
}

/** A refusal or failure, with the problems it names (location and message). */
export function ErrorBox({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  // A refusal shows the fake's own message and problems (its error body); anything else its text.
  const body = error instanceof AdminError ? error.body : undefined;
  const message = body?.message ?? (error instanceof Error ? error.message : String(error));
  const problems = body?.errors ?? [];
  const status = error instanceof AdminError ? error.status : undefined;
  return (
    <div class="error" role="alert">
      <strong>{status ? `${status}: ` : ''}</strong>
      {message}
      {problems.length ? (
        <ul class="problems">
          {problems.map((p) => (
            <li>
              <code class="location">{p.location}</code> {p.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function Panel({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <section class="panel">
      <h2>{title}</h2>
      {children}
    </section>
  );
}
