/** The shapes the admin API answers (see spec/openapi.yaml, tag admin). */

export interface Finding {
  location: string;
  message: string;
}

export interface JournalEntry {
  id: number;
  time: string;
  method: string;
  path: string;
  query: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
  bodyTruncated?: true;
  bodyBytes?: number;
  status?: number;
  durationMs: number;
  response?: unknown;
  responseTruncated?: true;
  responseBytes?: number;
  operationId?: string;
  fault?: string;
  dropped?: true;
  aborted?: true;
  violations: Finding[];
  notices: Finding[];
}

export interface JournalPage {
  count: number;
  requests: JournalEntry[];
}

export interface Organization {
  id: number;
  name: string;
}

export interface Client {
  id: number;
  organizationId: number;
  name: string;
}

export interface TemplateField {
  key: string;
  name: string;
  description: string;
}

export interface Template {
  id: number;
  name: string;
  type: string;
  fields: TemplateField[];
}

export interface DocumentRow {
  id: number;
  organization_id: number;
  client_id: number;
  templateId: number;
  label: string;
  description: string;
  customId: string;
  details: Record<string, unknown>;
  last_modified: string;
}

export interface ApiKey {
  keyId: string;
  secret: string;
  organizationId: number;
}

export interface State {
  organizations: Organization[];
  clients: Client[];
  templates: Template[];
  documents: DocumentRow[];
  apiKeys: ApiKey[];
}

export interface Fault {
  id: string;
  method?: string;
  path?: string;
  status?: number;
  body?: unknown;
  delayMs?: number;
  times?: number;
  drop?: boolean;
  [key: string]: unknown;
}

export interface Session {
  id: string;
  baseUrl: string;
  createdAt: string;
  expires: boolean;
  lastUsedAt: string;
}

export interface Clock {
  now: number;
  offsetSeconds: number;
}
