/**
 * Writes the bundled default fixture set, `fixtures/default/*.json`, deterministically:
 * two organizations with their clients, the built-in template catalogue, a few hand-written
 * documents shaped like live data (mixed detail entries, a reference value, numeric-string keys)
 * and generated documents on top. No `apiKeys.json`: the deterministic default keys apply.
 *
 *   npx tsx scripts/make-default-fixtures.ts
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defaultApiKey } from '../src/domain/fixtures/default-keys.js';
import { generateDocuments } from '../src/domain/fixtures/generate-documents.js';
import { loadFixtureSource } from '../src/domain/fixtures/load-fixtures.js';
import { templateCatalogue } from '../src/domain/fixtures/template-catalogue.js';
import { packagePath } from '../src/domain/fixtures/validate-fixtures.js';
import { type Document, TEMPLATE_TYPES } from '../src/domain/types.js';

const SEED = 2024;
const GENERATED = 292;

const organizations = [
  { id: 1, name: 'Tayside IT Services' },
  { id: 2, name: 'Northern Lights MSP' },
];
const clients = [
  { id: 41001, organizationId: 1, name: 'Dundee Office Ltd' },
  { id: 41002, organizationId: 1, name: "Matt's Museum" },
  { id: 41003, organizationId: 1, name: 'Harbour Dental Group' },
  { id: 41004, organizationId: 1, name: 'Tayside Law LLP' },
  { id: 52001, organizationId: 2, name: 'Northwind Traders' },
  { id: 52002, organizationId: 2, name: 'Fabrikam Engineering' },
  { id: 52003, organizationId: 2, name: 'Contoso Pharmacy & Co' },
];
const templates = templateCatalogue();

const entry = (name: string, text: string, description = '') => ({
  name,
  description,
  value: { type: 'string', text },
});

const handWritten: Document[] = [
  {
    id: 101101,
    organization_id: 1,
    client_id: 41001,
    templateId: 5001,
    label: 'Dundee Office',
    description: 'Head office and comms room',
    customId: 'LOC-0001',
    details: {
      name: entry('Name', 'Dundee Office'),
      tags: [],
      address_1: entry('Address 1', '1 High St', 'First line of the street address'),
      address_2: null,
      city: null,
      'state/province': entry('State/Province', 'Angus'),
      postal_code: entry('Postal Code', 'DD1 1AA'),
      country: 'Scotland',
      phone: entry('Phone', '+44 1382 000 0000'),
      fax: null,
      notes: null,
    },
    last_modified: '2024-03-14T09:26:53.000Z',
  },
  {
    id: 101102,
    organization_id: 1,
    client_id: 41002,
    templateId: 79,
    label: 'SRV-MUS-001',
    description: "Collections database server at Matt's Museum",
    customId: '',
    details: {
      name: entry('Name', 'SRV-MUS-001'),
      asset_type: entry('Asset Type', 'Server', 'Workstation, laptop, server, firewall, ...'),
      manufacturer: {
        name: 'Manufacturer',
        description: '',
        value: { text: 'Dell', id: 1843839, type: 'vendors' },
        attribute: [{ text: 'Dell', id: 1843839, type: 'vendors' }],
      },
      model: entry('Model', 'PowerEdge T350'),
      serial_number: entry('Serial Number', '7XK2M93'),
      ip_address: '10.20.0.10',
      operating_system: entry('Operating System', 'Windows Server 2022'),
      warranty_expiry: entry('Warranty Expiry', '2027-05-31'),
      tags: ['critical', 'on-premises'],
    },
    last_modified: '2024-11-02T16:05:12.000Z',
  },
  {
    id: 101103,
    organization_id: 2,
    client_id: 52001,
    templateId: 5003,
    label: 'Starters and leavers checklist',
    description: 'Imported from the previous documentation system',
    customId: 'KB-0042',
    details: {
      '0': entry('Step 1', 'Create the account in Microsoft 365'),
      '1': entry('Step 2', 'Add to the Staff security group'),
      '2': entry('Step 3', 'Issue a laptop and record its asset tag'),
      tags: ['onboarding'],
    },
    last_modified: '2023-09-18T11:40:00.000Z',
  },
];

async function main(): Promise<void> {
  const base = { organizations, clients, templates, documents: handWritten, apiKeys: [] };
  const documents = handWritten.concat(generateDocuments(base, GENERATED, SEED));
  const missing = TEMPLATE_TYPES.filter(
    (type) => !documents.some((d) => templates.find((t) => t.id === d.templateId)?.type === type),
  );
  if (missing.length > 0) throw new Error(`no document of type ${missing.join(', ')}; pick another seed`);

  const folder = packagePath('fixtures/default');
  await mkdir(folder, { recursive: true });
  const files = { organizations, clients, templates, documents };
  for (const [key, value] of Object.entries(files)) {
    await writeFile(join(folder, `${key}.json`), `${JSON.stringify(value, null, 2)}\n`);
  }

  const { dataset, source } = await loadFixtureSource(undefined, {});
  console.log(
    `wrote ${source}: ${dataset.documents.length} documents, ${dataset.templates.length} templates`,
  );
  for (const o of organizations) {
    const key = defaultApiKey(o.id);
    console.log(`organization ${o.id} (${o.name}): keyId ${key.keyId} secret ${key.secret}`);
  }
}

await main();
