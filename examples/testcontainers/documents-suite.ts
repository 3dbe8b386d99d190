/**
 * The integration suite, written once and run against any running fake: the Docker image
 * (documents.container.test.ts) or an in-process server (documents.in-process.test.ts).
 *
 * Pattern: one session per suite (its own state, journal and clock, addressed by its base URL,
 * so suites can share one fake and run in parallel); the client under test only gets that base
 * URL; the last test asks the fake whether the client broke the contract anywhere.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type ApiKey, DocumentsClient, PassportalError } from './documents-client.js';

/** The suite's fixture set (a folder of per-kind files), mounted at /fixtures in the container. */
export const SUITE_FIXTURES = fileURLToPath(new URL('../fixtures/suite', import.meta.url));

const keys = JSON.parse(readFileSync(`${SUITE_FIXTURES}/apiKeys.json`, 'utf8')) as Array<
  ApiKey & { organizationId: number }
>;
/** The key of organization 1 ("Harbour IT"), as listed in the suite's apiKeys.json. */
const HARBOUR_KEY = keys.find((k) => k.organizationId === 1) as ApiKey;

export interface RunningFake {
  /** Root URL of the fake, e.g. http://localhost:32768 (no trailing slash). */
  url: string;
  stop(): Promise<void>;
}

interface Session {
  id: string;
  baseUrl: string;
}

async function admin<T>(url: string, method = 'GET'): Promise<T> {
  const res = await fetch(url, { method });
  if (!res.ok) throw new Error(`${method} ${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

const createSession = (fakeUrl: string) => admin<Session>(`${fakeUrl}/__admin/sessions`, 'POST');
const deleteSession = (fakeUrl: string, id: string) =>
  admin(`${fakeUrl}/__admin/sessions/${encodeURIComponent(id)}`, 'DELETE');

/**
 * Registers the suite's hooks and tests in the caller's `describe`. `startTimeoutMs` bounds
 * starting the fake (building an image takes longer than starting a server).
 */
export function documentsClientSuite(startFake: () => Promise<RunningFake>, startTimeoutMs = 30_000): void {
  let fake: RunningFake | undefined;
  let session: Session;
  let client: DocumentsClient;

  beforeAll(async () => {
    fake = await startFake();
    session = await createSession(fake.url);
    client = new DocumentsClient(session.baseUrl, HARBOUR_KEY);
  }, startTimeoutMs);

  afterAll(async () => {
    if (fake && session) await deleteSession(fake.url, session.id);
    await fake?.stop();
  }, 30_000);

  it('lists every document of its organization, page by page, ordered by label', async () => {
    const documents = await client.listAll({ resultsPerPage: 2, orderBy: 'label', orderDir: 'asc' });
    expect(documents.map((d) => d.label)).toEqual([
      'bakery office laptop',
      'Bakery Router',
      'Bakery Till PC',
      'Dental Reception PC',
      'dental x-ray server',
      'Lighthouse Dental Surgery',
    ]);
  });

  it('filters by client and by search text', async () => {
    expect((await client.listAll({ clientId: 7002 })).map((d) => d.id)).toEqual([300004, 300005, 300006]);
    expect((await client.listAll({ searchTxt: 'DELL' })).map((d) => d.id)).toEqual([300001, 300005]);
  });

  it('reads one document with its details', async () => {
    const document = await client.getDocument(300003);
    expect(document.templateUid).toBe('tpl-79');
    expect(document.details.serial_number).toMatchObject({ value: { text: 'SN-BK-0003' } });
  });

  it('updates one detail and keeps the others', async () => {
    const entry = { name: 'Serial Number', description: '', value: { type: 'string', text: 'SN-BK-0003-R' } };
    await client.setDetail(300003, 'serial_number', entry);
    const document = await client.getDocument(300003);
    expect(document.details.serial_number).toMatchObject({ value: { text: 'SN-BK-0003-R' } });
    expect(document.details.manufacturer).toMatchObject({ value: { text: 'Ubiquiti' } });
  });

  it("does not see another organization's documents", async () => {
    const error = await client.getDocument(400001).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PassportalError);
    expect(error).toMatchObject({ status: 403, body: { message: 'not found.' } });
  });

  it('changes stay in this session', async () => {
    const other = fake ? await createSession(fake.url) : undefined;
    try {
      const fresh = await new DocumentsClient(other?.baseUrl ?? '', HARBOUR_KEY).getDocument(300003);
      expect(fresh.details.serial_number).toMatchObject({ value: { text: 'SN-BK-0003' } });
    } finally {
      if (fake && other) await deleteSession(fake.url, other.id);
    }
  });

  // Last: everything the client sent in this session kept to the contract.
  it('made no contract violations', async () => {
    const { violations } = await admin<{ violations: unknown[] }>(`${session.baseUrl}/__admin/violations`);
    expect(violations).toEqual([]);
  });
}
