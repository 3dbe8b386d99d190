import { TEMPLATE_TYPES } from '../domain/types.js';
import type { Crawled } from './capture-crawl.js';
import type { Row } from './probe-kit.js';

/**
 * A crawled organization as a fixture set (docs/fixtures.md): organizations and clients as seen,
 * templates inferred from the rows (id, name, type) and from the details' object entries (key,
 * field name, field description, in the order first seen), and documents with their details as
 * read. No API keys: the fake derives its own, and the live key is never written.
 */

export interface CapturedSet {
  organizations: Row[];
  clients: Row[];
  templates: Row[];
  documents: Row[];
}

export interface CaptureSummary {
  documents: number;
  /** Documents whose details could not be read (their details are left out: every field null). */
  unreadable: number;
  /** Templates whose live type is not one of the 19 the fixtures know (captured as `custom`). */
  otherTypes: number;
}

export function captureToFixtures(crawled: Crawled): { set: CapturedSet; summary: CaptureSummary } {
  const rows = [...crawled.documents.values()].flat();
  const orgOfClient = new Map<number, number>();
  for (const row of rows) orgOfClient.set(Number(row.client_id), Number(row.organization_id));
  const organizationIds = [...new Set(rows.map((r) => Number(r.organization_id)))].sort((a, b) => a - b);
  if (organizationIds.length === 0) organizationIds.push(1);
  const firstOrg = organizationIds[0] ?? 1;
  const clients = crawled.clients.map((c) => ({
    id: Number(c.id),
    organizationId: orgOfClient.get(Number(c.id)) ?? firstOrg,
    name: String(c.name ?? ''),
  }));
  const listed = new Set(clients.map((c) => c.id));
  for (const [id, org] of orgOfClient) {
    if (!listed.has(id)) clients.push({ id, organizationId: org, name: `Client ${id}` });
  }
  const templates = new Map<
    number,
    { id: number; name: string; type: string; fields: Row[]; keys: Set<string> }
  >();
  let otherTypes = 0;
  let unreadable = 0;
  const documents: Row[] = [];
  for (const row of rows) {
    const templateId = Number(row.templateId);
    let template = templates.get(templateId);
    if (template === undefined) {
      const type = String(row.type ?? '');
      const known = (TEMPLATE_TYPES as readonly string[]).includes(type);
      if (!known) otherTypes += 1;
      template = {
        id: templateId,
        name: String(row.templateName ?? `Template ${templateId}`),
        type: known ? type : 'custom',
        fields: [],
        keys: new Set(),
      };
      templates.set(templateId, template);
    }
    const read = crawled.details.get(Number(row.id));
    const details = read?.details;
    if (details === undefined) unreadable += 1;
    for (const [key, entry] of Object.entries(details ?? {})) {
      if (template.keys.has(key) || entry === null || typeof entry !== 'object' || Array.isArray(entry))
        continue;
      const field = entry as Row;
      template.keys.add(key);
      template.fields.push({
        key,
        name: typeof field.name === 'string' ? field.name : key,
        description: typeof field.description === 'string' ? field.description : '',
      });
    }
    const document: Row = {
      id: Number(row.id),
      organization_id: Number(row.organization_id),
      client_id: Number(row.client_id),
      templateId,
      label: String(row.label ?? ''),
      description: String(row.description ?? ''),
      customId: String(row.customId ?? ''),
    };
    if (typeof row.accessible === 'boolean') document.accessible = row.accessible;
    if (typeof row.last_modified === 'string') document.last_modified = row.last_modified;
    if (details !== undefined) document.details = details;
    documents.push(document);
  }
  return {
    set: {
      organizations: organizationIds.map((id) => ({ id, name: `Organization ${id}` })),
      clients,
      templates: [...templates.values()].map(({ keys: _keys, ...t }) => t),
      documents,
    },
    summary: { documents: documents.length, unreadable, otherTypes },
  };
}
