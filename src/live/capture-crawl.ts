import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { decodeHtmlEntities } from '../domain/html-entities.js';
import { type ApiTarget, LiveStop } from './api-target.js';
import { bodyOf, type Row, rowsOf } from './probe-kit.js';
import { Redactor } from './redact.js';

/**
 * The read-only crawl of one organization: its clients (documents/clients, page by page), then
 * each client's documents (the list filtered by client, page by page), then each document's
 * details. Every answer is redacted (unless asked not to) before it is kept, and kept as one line
 * appended to a progress file, so an interrupted crawl resumes where it stopped and nothing the
 * tenant holds reaches the disk in clear unless `--no-redact` said so.
 */

const PAGE = 100;

/**
 * The list-row fields kept, beside the texts (label, description, customId, redacted): what
 * `captureToFixtures` makes the fixture set of. Any other field is left out from the first write.
 */
const KEPT_ROW_FIELDS = [
  'id',
  'organization_id',
  'client_id',
  'templateId',
  'templateName',
  'type',
  'accessible',
  'last_modified',
] as const;

export type ProgressLine =
  | { kind: 'start'; host: string; redact: boolean; salt: string }
  | { kind: 'clients'; rows: Row[] }
  | { kind: 'documents'; clientId: number; rows: Row[] }
  | { kind: 'details'; id: number; status: number; details?: Row };

export interface Crawled {
  clients: Row[];
  documents: Map<number, Row[]>;
  details: Map<number, { status: number; details?: Row }>;
}

/** Reads a progress file; a last line cut short by an interruption is left out. */
export function readProgress(path: string): ProgressLine[] {
  const lines: ProgressLine[] = [];
  for (const text of readFileSync(path, 'utf8').split('\n')) {
    if (text.trim() === '') continue;
    try {
      lines.push(JSON.parse(text) as ProgressLine);
    } catch {
      break;
    }
  }
  return lines;
}

/** The detail entry redacted: texts replaced; keys, ids, value types and field names and descriptions kept. */
function redactEntry(redactor: Redactor, entry: unknown, depth = 0): unknown {
  if (typeof entry === 'string') return redactor.text(entry);
  if (Array.isArray(entry)) return entry.map((item) => redactEntry(redactor, item, depth + 1));
  if (entry === null || typeof entry !== 'object') return entry;
  // User-keyed objects have no prototype: a `__proto__` key stays a key.
  const out: Row = Object.create(null);
  for (const [key, value] of Object.entries(entry)) {
    const fieldDefinition = depth === 0 && (key === 'name' || key === 'description');
    out[key] =
      fieldDefinition || key === 'type' || key === 'id' ? value : redactEntry(redactor, value, depth + 1);
  }
  return out;
}

export interface CrawlOptions {
  progressPath: string;
  redact: boolean;
  resume: boolean;
  /** Checked between requests: stops the crawl (it resumes later). */
  signal: AbortSignal;
  onStep?: (what: string) => void;
}

export class Interrupted extends Error {}

export async function crawl(api: ApiTarget, options: CrawlOptions): Promise<Crawled> {
  const { progressPath } = options;
  let start: Extract<ProgressLine, { kind: 'start' }>;
  const crawled: Crawled = { clients: [], documents: new Map(), details: new Map() };
  let clientsDone = false;
  if (options.resume && existsSync(progressPath)) {
    const lines = readProgress(progressPath);
    const first = lines[0];
    if (first?.kind !== 'start' || first.host !== api.host || first.redact !== options.redact) {
      throw new LiveStop(
        'answer',
        `${progressPath} belongs to another capture (another host or redaction); remove it to start afresh`,
      );
    }
    start = first;
    for (const line of lines) {
      if (line.kind === 'clients') {
        crawled.clients = line.rows;
        clientsDone = true;
      } else if (line.kind === 'documents') crawled.documents.set(line.clientId, line.rows);
      else if (line.kind === 'details')
        crawled.details.set(line.id, { status: line.status, details: line.details });
    }
  } else {
    start = { kind: 'start', host: api.host, redact: options.redact, salt: randomBytes(32).toString('hex') };
    writeFileSync(progressPath, `${JSON.stringify(start)}\n`, { mode: 0o600 });
  }
  const redactor = new Redactor(start.salt);
  const text = (value: unknown) =>
    options.redact && typeof value === 'string' ? redactor.text(value) : value;
  const keep = (line: ProgressLine) => appendFileSync(progressPath, `${JSON.stringify(line)}\n`);
  const check = () => {
    if (options.signal.aborted) throw new Interrupted('interrupted');
  };

  /**
   * Every row of a paged list. A page whose rows repeat an earlier page's (a tenant or gateway
   * that ignores pageNum) stops the crawl: paging on would only fetch the same rows again.
   */
  const pages = async (path: string, query: string): Promise<Row[]> => {
    const rows: Row[] = [];
    const seen = new Map<string, number>();
    let firstCount: number | undefined;
    for (let page = 1; page <= 9999; page += 1) {
      check();
      const answer = await api.send('GET', path, { query: `${query}resultsPerPage=${PAGE}&pageNum=${page}` });
      const got = rowsOf(answer);
      if (answer.status !== 200 || got === undefined) {
        throw new LiveStop(
          'answer',
          `GET ${path} answered ${answer.status}; the capture stops here (resume later)`,
        );
      }
      const digest = got.length === 0 ? '' : createHash('sha256').update(JSON.stringify(got)).digest('hex');
      const earlier = seen.get(digest);
      if (earlier !== undefined) {
        throw new LiveStop(
          'answer',
          `GET ${path} answered page ${page} with the same ${got.length} rows as page ${earlier}: ` +
            `${api.host} does not page by pageNum, so the capture stops here rather than read those rows again`,
        );
      }
      if (digest !== '') seen.set(digest, page);
      rows.push(...got);
      firstCount ??= got.length;
      if (got.length === 0 || got.length < firstCount) break;
    }
    return rows;
  };

  if (!clientsDone) {
    options.onStep?.('crawling clients');
    const rows = (await pages('/api/v2/documents/clients', '')).map((r) => ({
      id: r.id,
      name: text(decodeHtmlEntities(String(r.name ?? ''))),
    }));
    crawled.clients = rows;
    keep({ kind: 'clients', rows });
  }
  for (const [index, client] of crawled.clients.entries()) {
    const clientId = Number(client.id);
    if (crawled.documents.has(clientId)) continue;
    options.onStep?.(`crawling documents of client ${index + 1}/${crawled.clients.length}`);
    // Only the fields the fixture set is made of are kept (captureToFixtures): a field the list
    // rows hold beyond them (a door code, an e-mail address) never reaches the progress file.
    const rows = (await pages('/api/v2/documents', `clientId=${clientId}&orderBy=id&orderDir=asc&`)).map(
      (r) => {
        const row: Row = {};
        for (const key of KEPT_ROW_FIELDS) if (Object.hasOwn(r, key)) row[key] = r[key];
        return {
          ...row,
          label: text(r.label),
          description: text(r.description),
          customId: text(r.customId),
        };
      },
    );
    crawled.documents.set(clientId, rows);
    keep({ kind: 'documents', clientId, rows });
  }
  const ids = [...crawled.documents.values()].flat().map((r) => Number(r.id));
  for (const [index, id] of ids.entries()) {
    if (crawled.details.has(id)) continue;
    check();
    options.onStep?.(`reading document ${index + 1}/${ids.length}`);
    const answer = await api.send('GET', `/api/v2/documents/${id}`);
    const raw = bodyOf(answer)?.details;
    let details: Row | undefined;
    if (answer.status === 200 && raw !== null && typeof raw === 'object' && !Array.isArray(raw)) {
      details = Object.create(null) as Row;
      for (const [key, entry] of Object.entries(raw))
        details[key] = options.redact ? redactEntry(redactor, entry) : entry;
    }
    crawled.details.set(id, { status: answer.status, details });
    keep({ kind: 'details', id, status: answer.status, ...(details === undefined ? {} : { details }) });
  }
  return crawled;
}
