/**
 * The code under test: a small Passportal Documents API v2 client, standing in for the client of
 * your application. It knows nothing about the fake; it only gets a base URL and an API key.
 */
import { createHmac, randomUUID } from 'node:crypto';

export interface ApiKey {
  keyId: string;
  secret: string;
}

export interface DetailEntry {
  name: string;
  description: string;
  value: { type: string; text: string; [more: string]: unknown };
  [more: string]: unknown;
}

export interface DocumentSummary {
  id: number;
  label: string;
  client_id: number;
  templateId: number;
  customId: string;
}

export interface Document {
  id: number;
  templateUid: string;
  details: Record<string, unknown>;
}

export interface ListQuery {
  resultsPerPage?: number;
  orderBy?: 'id' | 'label';
  orderDir?: 'asc' | 'desc';
  clientId?: number;
  searchTxt?: string;
}

/** An answer other than 2xx; `status` and the vendor's `code` as the API sent them. */
export class PassportalError extends Error {
  constructor(
    readonly status: number,
    readonly body: { message?: string; code?: number },
  ) {
    super(`Passportal API answered ${status}: ${body.message ?? 'no message'}`);
  }
}

const isDetailEntry = (v: unknown): v is DetailEntry =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && 'value' in v;

export class DocumentsClient {
  private token: { value: string; expiresAt: number } | undefined;

  constructor(
    private readonly baseUrl: string,
    private readonly key: ApiKey,
  ) {}

  /** One page of documents (1-based `pageNum`). */
  async listPage(query: ListQuery, pageNum: number): Promise<DocumentSummary[]> {
    const params = new URLSearchParams({ pageNum: String(pageNum) });
    for (const [name, value] of Object.entries(query)) {
      if (value !== undefined) params.set(name, String(value));
    }
    const body = await this.call<{ results: DocumentSummary[] }>('GET', `/api/v2/documents?${params}`);
    return body.results;
  }

  /** Every matching document: the API has no totals, so pages are read until one is empty. */
  async listAll(query: ListQuery = {}): Promise<DocumentSummary[]> {
    const all: DocumentSummary[] = [];
    for (let page = 1; ; page++) {
      const results = await this.listPage(query, page);
      if (results.length === 0) return all;
      all.push(...results);
    }
  }

  getDocument(id: number): Promise<Document> {
    return this.call<Document>('GET', `/api/v2/documents/${id}`);
  }

  /**
   * Sets one detail field. PATCH replaces the template fields, so the current entries are read
   * first and sent back with the one changed.
   */
  async setDetail(id: number, key: string, entry: DetailEntry): Promise<void> {
    const current = await this.getDocument(id);
    const details: Record<string, DetailEntry> = {};
    for (const [k, v] of Object.entries(current.details)) if (isDetailEntry(v)) details[k] = v;
    details[key] = entry;
    await this.call('PATCH', `/api/v2/documents/${id}`, details);
  }

  private async accessToken(): Promise<string> {
    const now = Date.now() / 1000;
    if (this.token && this.token.expiresAt - 60 > now) return this.token.value;
    const content = randomUUID();
    const hash = createHmac('sha256', this.key.secret).update(content).digest('hex');
    const res = await fetch(`${this.baseUrl}/api/v2/auth/client_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-key': this.key.keyId, 'x-hash': hash },
      body: JSON.stringify({ scope: 'docs_api', content }),
    });
    const body = (await res.json()) as { access_token: string; expiry_time: number; message?: string };
    if (!res.ok) throw new PassportalError(res.status, body);
    this.token = { value: body.access_token, expiresAt: Number(body.expiry_time) };
    return body.access_token;
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = { 'x-access-token': await this.accessToken() };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const parsed = (await res.json()) as T & { message?: string; code?: number };
    if (!res.ok) throw new PassportalError(res.status, parsed);
    return parsed;
  }
}
