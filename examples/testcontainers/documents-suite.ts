/**
 * The integration suite, written once and run against any running fake: the Docker image
 * (documents.container.test.ts) or an in-process server (documents.in-process.test.ts).
 *
 * Pattern: one session per suite (its own state, journal and clock, addressed by its base URL,
 * so suites can share one fake and run in parallel); the client under test only gets that base
 * URL; after every test the fake is asked whether the client broke the contract (a failing check
 * fails that test, and the session is still deleted and the fake stopped).
 *
 * In your project, import from the package instead: `from 'passportal-docs-fake'`.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { type AdminClient, createAdminClient } from '../../src/index.js';
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
  admin: AdminClient;
}

/**
 * Registers the suite's hooks and tests in the caller's `describe`. `startTimeoutMs` bounds
 * starting the fake (building an image takes longer than starting a server).
 */
export function documentsClientSuite(startFake: () => Promise<RunningFake>, startTimeoutMs = 30_000): void {
  let fake: RunningFake | undefined;
  let admin: AdminClient;
  let session: Session | undefined;
  let client: DocumentsClient;

  beforeAll(async () => {
    fake = await startFake();
    admin = createAdminClient(fake.url);
    session = await admin.createSession();
    client = new DocumentsClient(session.baseUrl, HARBOUR_KEY);
  }, startTimeoutMs);

  // Each test starts from the suite's fixtures, with an empty journal.
  beforeEach(() => session?.admin.reset());
  // Everything the client sent during the test kept to the contract; throws listing each violation.
  afterEach(() => session?.admin.expectNoViolations());

  afterAll(async () => {
    try {
      if (session) await admin.deleteSession(session.id);
    } finally {
      await fake?.stop();
    }
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
    const other = await admin.createSession();
    try {
      const fresh = await new DocumentsClient(other.baseUrl, HARBOUR_KEY).getDocument(300003);
      expect(fresh.details.serial_number).toMatchObject({ value: { text: 'SN-BK-0003' } });
      await other.admin.expectNoViolations();
    } finally {
      await admin.deleteSession(other.id);
    }
  });
}
