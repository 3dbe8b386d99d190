import { readFileSync } from 'node:fs';
import { ADMIN_TAG, listOperations } from '../contract/operations.js';
import type { OpenApiDocument } from '../contract/spec-document.js';
import { packagePath } from '../package-root.js';
import type { Redaction } from './redaction.js';
import type { CallAt } from './tool-calls.js';

/**
 * The MCP server's resources: the spec, the decisions, the catalogues of errors, notices and
 * behaviours (the pages the package ships in docs/), an instance's report in Markdown, and its
 * HAR when the spec has an admin operation for it (`GET /__admin/har`): the HAR resources appear
 * with that operation, with no line here to change. Reports and HARs are read through the admin
 * API like the tools' calls, and redacted the same way.
 */

export const SCHEME = 'passportal-fake';

interface Page {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  file: string;
}

const doc = (name: string, title: string, description: string): Page => ({
  uri: `${SCHEME}://docs/${name}`,
  name,
  title,
  description,
  mimeType: 'text/markdown',
  file: `docs/${name}`,
});

const PAGES: readonly Page[] = [
  {
    uri: `${SCHEME}://spec/openapi.yaml`,
    name: 'openapi.yaml',
    title: 'The contract (OpenAPI 3.1)',
    description: "The vendor's operations the fake serves and the admin operations the tools are made from.",
    mimeType: 'application/yaml',
    file: 'spec/openapi.yaml',
  },
  doc(
    'decisions.md',
    'Decisions',
    'What the fake does where the vendor documentation is silent, and the option that changes it.',
  ),
  doc(
    'errors.md',
    'Error catalogue',
    'Every error the fake answers, with its status, code and whether it is a contract violation.',
  ),
  doc(
    'notices.md',
    'Notice catalogue',
    'What a client relied on that the documentation does not promise, with what to send instead.',
  ),
  doc(
    'behaviours.md',
    'Behaviour catalogue',
    'The behaviours a client can meet, which the report counts as exercised or not.',
  ),
];

/** An instance's artefact read through an admin operation: the report, the HAR. */
interface Artefact {
  name: string;
  title: string;
  mimeType: string;
  /** The admin path (with query) that answers it. */
  path: string;
}

/** The report always; the HAR when the spec has `GET /__admin/har`. */
function artefactsOf(document: OpenApiDocument): Artefact[] {
  const found: Artefact[] = [
    { name: 'report.md', title: 'Report', mimeType: 'text/markdown', path: '/report?format=markdown' },
  ];
  const har = listOperations(document).some(
    (op) => op.tags.includes(ADMIN_TAG) && op.method === 'get' && op.path === '/__admin/har',
  );
  if (har) found.push({ name: 'har', title: 'HAR', mimeType: 'application/json', path: '/har' });
  return found;
}

const rootUri = (a: Artefact) => `${SCHEME}://root/${a.name}`;
const sessionTemplate = (a: Artefact) => `${SCHEME}://sessions/{session}/${a.name}`;

export function listResources(document: OpenApiDocument) {
  return [
    ...PAGES.map(({ file: _file, ...page }) => page),
    ...artefactsOf(document).map((a) => ({
      uri: rootUri(a),
      name: `root ${a.name}`,
      title: `${a.title} of the root instance`,
      mimeType: a.mimeType,
    })),
  ];
}

/** Live sessions whose reports (and HARs) `resources/list` names; the templates reach any other. */
export const LISTED_SESSIONS = 100;

/**
 * The resources of the live sessions (at most `LISTED_SESSIONS`), as the root's session list
 * answers them to this caller; none when that call is refused (the templates still reach them).
 */
export async function sessionResources(document: OpenApiDocument, callAt: CallAt) {
  let ids: string[] = [];
  try {
    const answer = await callAt(undefined)('GET', '/sessions');
    if (answer.status === 200) {
      const { sessions } = JSON.parse(answer.text) as { sessions?: Array<{ id?: unknown }> };
      ids = (sessions ?? []).map((s) => s.id).filter((id): id is string => typeof id === 'string');
    }
  } catch {
    // The fake did not answer: the static resources are listed alone.
  }
  return ids.slice(0, LISTED_SESSIONS).flatMap((id) =>
    artefactsOf(document).map((a) => ({
      uri: `${SCHEME}://sessions/${encodeURIComponent(id)}/${a.name}`,
      name: `session ${id} ${a.name}`,
      title: `${a.title} of session ${id}`,
      mimeType: a.mimeType,
    })),
  );
}

export function listResourceTemplates(document: OpenApiDocument) {
  return artefactsOf(document).map((a) => ({
    uriTemplate: sessionTemplate(a),
    name: `session ${a.name}`,
    title: `${a.title} of a session`,
    description: `The ${a.title.toLowerCase()} of one session (its id as createSession answered it).`,
    mimeType: a.mimeType,
  }));
}

/** A resource's contents, or undefined for a URI the server does not have. */
export async function readResource(
  uri: string,
  context: { document: OpenApiDocument; specText: string | undefined; callAt: CallAt; redaction: Redaction },
): Promise<{ uri: string; mimeType: string; text: string } | undefined> {
  const page = PAGES.find((p) => p.uri === uri);
  if (page !== undefined) {
    const text =
      page.file === 'spec/openapi.yaml' && context.specText !== undefined
        ? context.specText
        : readFileSync(packagePath(page.file), 'utf8');
    return { uri, mimeType: page.mimeType, text };
  }
  const match = new RegExp(`^${SCHEME}://(?:root|sessions/([^/]+))/([^/]+)$`).exec(uri);
  const artefact = artefactsOf(context.document).find((a) => a.name === match?.[2]);
  if (match === null || artefact === undefined) return undefined;
  let session: string | undefined;
  try {
    session = match[1] === undefined ? undefined : decodeURIComponent(match[1]);
  } catch {
    return undefined;
  }
  const answer = await context.callAt(session)('GET', artefact.path);
  if (answer.status < 200 || answer.status > 299) {
    throw new Error(
      context.redaction.text(`GET ${artefact.path} answered ${answer.status}: ${answer.text.slice(0, 500)}`),
    );
  }
  const text =
    artefact.mimeType === 'application/json'
      ? JSON.stringify(context.redaction.value(JSON.parse(answer.text)), null, 2)
      : context.redaction.text(answer.text);
  return { uri, mimeType: artefact.mimeType, text };
}

/** Tool names the prompts mention: test/mcp/ holds each to a tool the spec makes. */
export const PROMPT_TOOLS = [
  'listViolations',
  'listNotices',
  'getRequest',
  'getReport',
  'createSession',
  'listScenarios',
  'applyScenario',
  'createFault',
  'createRateLimit',
  'setClock',
  'updateSettings',
  'createExpectedViolation',
  'loadFixtures',
] as const;

const instance = (session: string | undefined) =>
  session === undefined ? 'the root instance' : `session ${JSON.stringify(session)}`;

export const PROMPTS = [
  {
    name: 'explain-violations',
    title: "Explain this session's violations",
    description:
      "What the client under test did against the contract, in the vendor's own terms, and how to fix each.",
    arguments: [
      { name: 'session', description: 'The session id (absent: the root instance).', required: false },
    ],
  },
  {
    name: 'set-up-scenario',
    title: 'Set up a scenario',
    description:
      'Prepare the fake for a test: a session, fixtures, faults, rate limits, the clock, expected violations.',
    arguments: [
      {
        name: 'goal',
        description: 'What the test should put the client through, in your words.',
        required: true,
      },
      { name: 'session', description: 'A session to use (absent: create one).', required: false },
    ],
  },
] as const;

/** The text of a prompt's message, given its arguments. */
export function promptText(name: string, args: Record<string, string | undefined>): string | undefined {
  const session = args.session === '' ? undefined : args.session;
  const scope = session === undefined ? '' : ` with session: ${JSON.stringify(session)}`;
  if (name === 'explain-violations') {
    return [
      `Explain the contract violations of ${instance(session)} of the Passportal Documents API fake.`,
      `Read them with the tool listViolations${scope}; getRequest${scope} shows one request whole (its journal id).`,
      'For each violating request: name it (method, path, journal id), say which rule of the vendor documentation it broke,',
      "in the vendor's own terms (the violation's location and message; its error code in",
      `${SCHEME}://docs/errors.md), what the live service would answer, and the smallest change to the client that fixes it.`,
      `Then list the notices (listNotices${scope}): what worked here only because the fake is lenient, with what to send instead`,
      `(${SCHEME}://docs/notices.md). Where the documentation is silent, ${SCHEME}://docs/decisions.md says what the fake decided.`,
      'A violation the test provoked on purpose should have been declared first (createExpectedViolation); say so if one looks deliberate.',
      'The report of the instance follows.',
    ].join('\n');
  }
  if (name === 'set-up-scenario') {
    return [
      `Set up the Passportal Documents API fake for this test: ${args.goal ?? '(no goal given)'}`,
      session === undefined
        ? 'First create a session (createSession) so the test is isolated; the client under test then needs only its baseUrl.'
        : `Use session ${JSON.stringify(session)} (pass it as the session argument of every tool).`,
      'Load fixtures if the test needs its own data (loadFixtures). Pick a built-in scenario from the catalogue below',
      '(applyScenario), or combine faults (createFault), rate limits (createRateLimit), clock moves (setClock) and',
      'settings (updateSettings). Declare every violation the test provokes on purpose (createExpectedViolation).',
      'Finish by telling the user the base URL to give the client under test, and how to check the result afterwards:',
      `listViolations, or the report (getReport, or the resource ${SCHEME}://sessions/{session}/report.md).`,
      'The scenario catalogue follows.',
    ].join('\n');
  }
  return undefined;
}
