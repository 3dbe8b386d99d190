/**
 * Writes the bundled default fixture set, `fixtures/default/*.json`, deterministically:
 * two organizations with their clients (names with `&`, apostrophes, accents and Japanese), the
 * built-in template catalogue plus three templates keyed by numeric strings, hand-written
 * documents shaped like live data (mixed detail entries, a reference of every type seen live,
 * numeric-string keys, `accessible: false`) and generated documents on top. No `apiKeys.json`:
 * the deterministic default keys apply.
 *
 *   npx tsx scripts/make-default-fixtures.ts
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defaultApiKey } from '../src/domain/fixtures/default-keys.js';
import { generateDocuments } from '../src/domain/fixtures/generate-documents.js';
import { loadFixtureSource } from '../src/domain/fixtures/load-fixtures.js';
import { numericKeyedTemplates, templateCatalogue } from '../src/domain/fixtures/template-catalogue.js';
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
  { id: 41005, organizationId: 1, name: "O'Brien & Daughters Joinery" },
  { id: 41006, organizationId: 1, name: 'Crèche Les Petits Écoliers' },
  { id: 52004, organizationId: 2, name: 'Müller & Söhne GmbH' },
  { id: 52005, organizationId: 2, name: 'さくら歯科クリニック' },
];
const templates = [...templateCatalogue(), ...numericKeyedTemplates()];

const entry = (name: string, text: string, description = '') => ({
  name,
  description,
  value: { type: 'string', text },
});

type ReferenceType = 'vendors' | 'locations' | 'assets' | 'credentials' | 'contacts';

/** A reference entry in the live form; `name` undefined leaves out name and description. */
const ref = (type: ReferenceType, text: string, id: number, name?: string, description = '') => {
  const value = { text, id, type };
  const named = name === undefined ? {} : { name, description };
  return { ...named, value, attribute: [{ ...value }] };
};

/**
 * Documents showing the live service's shapes, with ids below the first hand-written document so
 * the generated ids stay where they were: one reference of every type (each document reference
 * names a document of the set), numeric-string keys, `accessible: false`.
 */
const showcase: Document[] = [
  {
    id: 101001,
    organization_id: 1,
    client_id: 41002,
    templateId: 5002,
    label: 'Dell',
    description: 'Hardware vendor: servers & laptops',
    customId: 'VEN-0001',
    details: {
      vendor_name: entry('Vendor Name', 'Dell'),
      account_number: entry('Account Number', '58301942'),
      website: entry('Website', 'https://www.dell.com'),
      support_phone: '+44 344 331 0800',
      support_email: null,
      account_manager: ref('contacts', "Siobhán O'Neill", 101002),
      contract_renewal: entry('Contract Renewal', '2026-04-01'),
      notes: null,
      tags: ['warranty'],
    },
    last_modified: '2024-06-03T08:12:44.000Z',
  },
  {
    id: 101002,
    organization_id: 1,
    client_id: 41002,
    templateId: 5000,
    label: "Siobhán O'Neill",
    description: "Collections manager; the museum's IT contact",
    customId: '',
    details: {
      first_name: entry('First Name', 'Siobhán'),
      last_name: entry('Last Name', "O'Neill"),
      job_title: entry('Job Title', 'Collections Manager'),
      email: entry('Email', 'siobhan.oneill@mattsmuseum.co.uk'),
      phone: '+44 1382 555 0142',
      mobile: null,
      location: ref('locations', 'Main Hall & Archive', 101003, 'Location'),
      preferred_contact_method: entry('Preferred Contact Method', 'Email'),
      notes: null,
      tags: [],
    },
    last_modified: '2024-06-03T08:15:02.000Z',
  },
  {
    id: 101003,
    organization_id: 1,
    client_id: 41002,
    templateId: 5001,
    label: 'Main Hall & Archive',
    description: '',
    customId: 'LOC-0002',
    details: {
      name: entry('Name', 'Main Hall & Archive'),
      address_1: entry('Address 1', "12 St Andrew's Row", 'First line of the street address'),
      address_2: null,
      city: entry('City', 'Dundee'),
      'state/province': null,
      postal_code: entry('Postal Code', 'DD1 4QB'),
      country: 'Scotland',
      phone: null,
      fax: null,
      notes: entry('Notes', 'Archive in the basement: <b>no</b> Wi-Fi, use the wired port by the door.'),
      tags: [],
    },
    last_modified: '2024-06-03T08:20:31.000Z',
  },
  {
    id: 101004,
    organization_id: 1,
    client_id: 41002,
    templateId: 5004,
    label: 'SRV-MUS-002',
    description: 'Imported from the previous documentation tool; keys are numeric as live',
    customId: '',
    details: {
      '0': entry('Name', 'SRV-MUS-002'),
      '1': ref('vendors', 'Dell', 101001),
      '2': entry('Model', 'PowerEdge R450'),
      '3': entry('Serial Number', '9QJ4M21'),
      '4': '10.20.0.11',
      '5': ref('locations', 'Main Hall & Archive', 101003),
      '6': entry('Operating System', 'Windows Server 2022'),
      '7': null,
      tags: ['on-premises'],
    },
    last_modified: '2024-07-19T13:02:10.000Z',
  },
  {
    id: 101005,
    organization_id: 1,
    client_id: 41002,
    templateId: 22,
    label: 'corp.mattsmuseum.local',
    description: 'Restricted: domain admins only',
    customId: 'AD-0001',
    accessible: false,
    details: {
      domain_name: entry('Domain Name', 'corp.mattsmuseum.local', 'Fully qualified AD domain name'),
      netbios_name: entry('NetBIOS Name', 'MUSEUM'),
      functional_level: entry('Forest Functional Level', 'Windows Server 2016'),
      domain_controllers: ref('assets', 'SRV-MUS-001', 101102, 'Domain Controllers'),
      dns_servers: '10.20.0.10',
      fsmo_roles_holder: null,
      admin_account: ref(
        'credentials',
        'Domain Administrator',
        3000100,
        'Admin Account',
        'Credential stored in the vault',
      ),
      notes: null,
      tags: ['critical'],
    },
    last_modified: '2024-07-19T13:30:00.000Z',
  },
  {
    id: 101006,
    organization_id: 2,
    client_id: 52004,
    templateId: 5000,
    label: 'Jürgen Müller',
    description: 'Geschäftsführer',
    customId: '',
    details: {
      first_name: entry('First Name', 'Jürgen'),
      last_name: entry('Last Name', 'Müller'),
      job_title: entry('Job Title', 'Managing Director'),
      email: entry('Email', 'j.mueller@mueller-soehne.de'),
      phone: null,
      mobile: null,
      location: null,
      preferred_contact_method: null,
      notes: null,
      tags: [],
    },
    last_modified: '2025-01-08T10:00:00.000Z',
  },
  {
    id: 101007,
    organization_id: 2,
    client_id: 52004,
    templateId: 5006,
    label: 'Sicherung prüfen & dokumentieren',
    description: 'Monatlich, jeden ersten Montag',
    customId: 'KB-0107',
    accessible: false,
    details: {
      '0': entry('Title', 'Sicherung prüfen & dokumentieren'),
      '1': ref('contacts', 'Jürgen Müller', 101006),
      '2': null,
      '3': entry('Review Date', '2025-06-30'),
      '4': entry('Summary', "Restore one file from last night's backup and note the result."),
      tags: ['review'],
    },
    last_modified: '2025-01-08T10:05:00.000Z',
  },
  {
    id: 101008,
    organization_id: 2,
    client_id: 52005,
    templateId: 5001,
    label: '本院 - 大阪',
    description: '受付は2階です',
    customId: '',
    details: {
      name: entry('Name', '本院 - 大阪'),
      address_1: entry('Address 1', '北区梅田1-2-3', 'First line of the street address'),
      address_2: entry('Address 2', 'さくらビル 2F'),
      city: entry('City', '大阪市'),
      'state/province': entry('State/Province', '大阪府'),
      postal_code: entry('Postal Code', '530-0001'),
      country: 'Japan',
      phone: entry('Phone', '+81 6-0000-0000'),
      fax: null,
      notes: null,
      tags: [],
    },
    last_modified: '2025-02-14T01:30:00.000Z',
  },
];

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
        value: { text: 'Dell', id: 101001, type: 'vendors' },
        attribute: [{ text: 'Dell', id: 101001, type: 'vendors' }],
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
  const written = [...showcase, ...handWritten];
  const base = { organizations, clients, templates, documents: written, apiKeys: [] };
  const documents = written.concat(generateDocuments(base, GENERATED, SEED));
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
