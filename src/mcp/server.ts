import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { createAdminCall } from '../client/admin-client.js';
import type { LoadedSpec, OpenApiDocument } from '../contract/spec-document.js';
import { PACKAGE_VERSION } from '../package-root.js';
import { Redaction } from './redaction.js';
import {
  listResources,
  listResourceTemplates,
  PROMPTS,
  promptText,
  readResource,
  SCHEME,
  sessionResources,
} from './resources.js';
import { type CallAt, runTool, toolsOf } from './tool-calls.js';

/**
 * The MCP server over the fake's admin API, the same for both transports (standard input and
 * output: `passportal-docs-fake mcp`, commands/mcp.ts; Streamable HTTP at `/__admin/mcp`,
 * mcp/http-endpoint.ts): tools made from the spec's admin operations (mcp/tools.ts), resources and
 * prompts (mcp/resources.ts). Every call goes through `callAt`, the admin API at the root or a
 * session, with the caller's own credentials; nothing here decides who may do what.
 */

export interface McpServerInput {
  /** The spec the tools are made from. */
  document: OpenApiDocument;
  /** Its text, served as the spec resource (absent: the package's spec/openapi.yaml). */
  specText?: string;
  callAt: CallAt;
  /** Secrets to take out of every answer besides those the answers name (the admin token). */
  secrets: Array<string | undefined>;
  /** The fake's URL, told to the assistant (the client under test needs it). */
  fakeUrl?: string;
}

function instructions(fakeUrl: string | undefined): string {
  return [
    `Controls of a fake of the Passportal Documents API v2${fakeUrl === undefined ? '' : ` at ${fakeUrl}`}, for testing a client of that API.`,
    'Each tool is one admin operation of the fake (its name the operationId of spec/openapi.yaml); the session argument',
    'addresses a session (createSession makes one, with its own state, journal, faults and clock; the client under test',
    'is given its baseUrl), and without it a tool acts on the root instance.',
    'A typical test: createSession, then faults or a scenario, the client runs, then listViolations and the report say',
    "what it did against the contract, in the vendor's terms. Tokens and secrets are redacted from every answer.",
    `Resources: the spec, ${SCHEME}://docs/decisions.md and the catalogues, each instance's report in Markdown.`,
  ].join('\n');
}

/**
 * The MCP server for a fake whose admin API answers at `url` (a session's below it), every call
 * made with `adminToken` and the token redacted from every answer: what both transports serve.
 */
export function createMcpServerFor(
  spec: LoadedSpec,
  url: string,
  adminToken: string | undefined,
  fakeUrl: string | undefined,
): Server {
  const callAt: CallAt = (session) =>
    createAdminCall(session === undefined ? url : `${url}/sessions/${encodeURIComponent(session)}`, {
      adminToken,
    });
  return createMcpServer({
    document: spec.document,
    specText: spec.yaml,
    callAt,
    secrets: [adminToken],
    fakeUrl,
  });
}

export function createMcpServer(input: McpServerInput): Server {
  const { document, specText, callAt, fakeUrl } = input;
  const redaction = new Redaction(input.secrets);
  const server = new Server(
    { name: 'passportal-docs-fake', title: 'Passportal Documents API fake', version: PACKAGE_VERSION },
    {
      capabilities: { tools: {}, resources: {}, prompts: {} },
      instructions: instructions(fakeUrl),
    },
  );

  server.setRequestHandler(ListToolsRequestSchema, () => ({
    tools: toolsOf(document).tools.map(({ name, title, description, inputSchema, annotations }) => ({
      name,
      title,
      description,
      inputSchema,
      annotations,
    })),
  }));

  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args } = request.params;
    const result = await runTool(document, name, args, callAt, redaction);
    if (result === undefined) throw new McpError(ErrorCode.InvalidParams, `unknown tool: ${name}`);
    return result;
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [...listResources(document), ...(await sessionResources(document, callAt))],
  }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: listResourceTemplates(document),
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const { uri } = request.params;
    const contents = await readResource(uri, { document, specText, callAt, redaction });
    if (contents === undefined) throw new McpError(ErrorCode.InvalidParams, `unknown resource: ${uri}`);
    return { contents: [contents] };
  });

  server.setRequestHandler(ListPromptsRequestSchema, () => ({
    prompts: PROMPTS.map((p) => ({ ...p, arguments: [...p.arguments] })),
  }));
  server.setRequestHandler(GetPromptRequestSchema, async (request) => {
    const { name, arguments: args = {} } = request.params;
    const text = promptText(name, args);
    if (text === undefined) throw new McpError(ErrorCode.InvalidParams, `unknown prompt: ${name}`);
    if (name === 'set-up-scenario' && (args.goal ?? '') === '') {
      throw new McpError(ErrorCode.InvalidParams, 'set-up-scenario needs its goal argument');
    }
    const session = args.session === '' ? undefined : args.session;
    // What the prompt is about, read now: the instance's report, or the scenario catalogue.
    const attached =
      name === 'explain-violations'
        ? await readResource(
            session === undefined
              ? `${SCHEME}://root/report.md`
              : `${SCHEME}://sessions/${encodeURIComponent(session)}/report.md`,
            { document, specText, callAt, redaction },
          ).catch((error: Error) => ({
            uri: '',
            mimeType: 'text/plain',
            text: `(the report could not be read: ${error.message})`,
          }))
        : await runTool(
            document,
            'listScenarios',
            session === undefined ? {} : { session },
            callAt,
            redaction,
          ).then((result) => ({
            uri: '',
            mimeType: 'application/json',
            text: result?.content[0]?.text ?? '',
          }));
    const prompt = PROMPTS.find((p) => p.name === name);
    return {
      description: prompt?.description,
      messages: [
        { role: 'user' as const, content: { type: 'text' as const, text } },
        { role: 'user' as const, content: { type: 'text' as const, text: attached?.text ?? '' } },
      ],
    };
  });
  return server;
}
