/**
 * The MCP server, driven by the official SDK's own client over both transports: standard input
 * and output (`passportal-docs-fake mcp --url`, the command run from source) and Streamable HTTP
 * (`/__admin/mcp` on the fake's own port, with `mcpHttp`). An assistant lists one tool per admin
 * operation of the spec (the list derived here from the spec, so none can be forgotten), creates a
 * session, injects a fault, the client under test sends a bad request, and the violations tool
 * names the violation. Arguments that break a tool's schema answer a tool error naming the field,
 * and the server goes on. No result holds a token or a secret.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TAG, listOperations } from '../../src/contract/operations.js';
import { loadSpec } from '../../src/contract/spec-document.js';
import { createMockServer, type MockServer } from '../../src/index.js';
import { accessToken } from '../support/request-token.js';
import { runCli } from '../support/run-cli.js';
import { ACME_KEY, SMALL_SET } from '../support/test-server.js';

const CLI = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const ADMIN_TOKEN = 'admin-token-for-the-mcp-test-0123456789';
const adminOperations = listOperations(loadSpec().document).filter((op) => op.tags.includes(ADMIN_TAG));

interface ToolText {
  text: string;
  isError: boolean;
}

const TRANSPORTS: Record<string, (url: string) => Transport> = {
  'standard input and output (passportal-docs-fake mcp --url)': (url) =>
    new StdioClientTransport({
      command: process.execPath,
      args: ['--import', 'tsx', CLI, 'mcp', '--url', url],
      env: { ...(process.env as Record<string, string>), ADMIN_TOKEN },
      stderr: 'pipe',
    }),
  'Streamable HTTP (/__admin/mcp, --mcp-http)': (url) =>
    new StreamableHTTPClientTransport(new URL(`${url}/__admin/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } },
    }),
};

for (const [name, transportFor] of Object.entries(TRANSPORTS)) {
  describe(`the MCP server over ${name}`, () => {
    let mock: MockServer;
    let url: string;
    let client: Client;
    /** Every text a tool, a resource or a prompt answered, to look for secrets in. */
    const answered: string[] = [];

    const call = async (tool: string, args: Record<string, unknown> = {}): Promise<ToolText> => {
      const result = (await client.callTool({ name: tool, arguments: args })) as {
        content: Array<{ type: string; text?: string }>;
        isError?: boolean;
      };
      const text = result.content.map((c) => c.text ?? '').join('\n');
      answered.push(text);
      return { text, isError: result.isError === true };
    };
    const json = async (tool: string, args: Record<string, unknown> = {}) => {
      const { text, isError } = await call(tool, args);
      expect(isError, text).toBe(false);
      return JSON.parse(text) as Record<string, unknown>;
    };

    beforeAll(async () => {
      mock = await createMockServer({
        fixtures: SMALL_SET,
        logLevel: 'silent',
        adminToken: ADMIN_TOKEN,
        mcpHttp: true,
      });
      url = await mock.listen(0, '127.0.0.1');
      client = new Client({ name: 'mcp-test', version: '1.0.0' });
      await client.connect(transportFor(url));
    }, 60_000);
    afterAll(async () => {
      await client?.close();
      await mock?.close();
    });

    it('lists one tool per admin operation of the spec, each with its hints', async () => {
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(adminOperations.map((op) => op.operationId).sort());
      for (const op of adminOperations) {
        const tool = tools.find((t) => t.name === op.operationId);
        expect(tool?.annotations?.readOnlyHint, op.operationId).toBe(op.method === 'get');
        if (op.method === 'delete') expect(tool?.annotations?.destructiveHint, op.operationId).toBe(true);
        expect(tool?.inputSchema.properties).toHaveProperty('session');
      }
      const reset = tools.find((t) => t.name === 'resetState');
      expect(reset?.annotations?.destructiveHint).toBe(true);
      const requests = tools.find((t) => t.name === 'listRequests');
      expect(requests?.inputSchema.properties?.limit).toMatchObject({
        type: 'integer',
        minimum: 1,
        maximum: 1000,
      });
    });

    it('creates a session, injects a fault; the violations tool names the bad request the client sent', async () => {
      const session = await json('createSession');
      const id = String(session.id);
      const baseUrl = String(session.baseUrl);
      expect(baseUrl).toBe(`${url}/sessions/${id}`);
      const fault = await json('createFault', {
        session: id,
        body: { path: '/api/v2/documents*', status: 503, times: 1 },
      });
      expect(typeof fault.id).toBe('string');

      // The client under test, at the session's URL: a token, the fault, then a bad page number.
      const token = await accessToken(baseUrl, ACME_KEY);
      const headers = { 'x-access-token': token };
      expect((await fetch(`${baseUrl}/api/v2/documents`, { headers })).status).toBe(503);
      expect((await fetch(`${baseUrl}/api/v2/documents?pageNum=0`, { headers })).status).toBe(404);

      const violations = await json('listViolations', { session: id });
      const list = violations.violations as Array<{
        method: string;
        path: string;
        violations: Array<{ location: string }>;
      }>;
      expect(list).toHaveLength(1);
      expect(list[0]?.path).toBe('/api/v2/documents');
      expect(list[0]?.violations.map((v) => v.location)).toContain('query.pageNum');
      // The root saw none of it.
      expect((await json('listViolations')).violations).toEqual([]);

      // What the journal and the state hold, read back: every token and secret redacted.
      const requests = await json('listRequests', { session: id });
      expect(requests.count).toBe(3);
      await json('getRequest', { session: id, requestId: '1' });
      const state = await json('getState', { session: id });
      const keys = state.apiKeys as Array<{ keyId: string; secret: string }>;
      expect(keys.length).toBeGreaterThan(0);
      for (const key of keys) expect(key.secret).toBe('(redacted)');
      for (const text of answered) {
        expect(text).not.toContain(token);
        expect(text).not.toContain(ACME_KEY.secret);
        expect(text).not.toContain(ADMIN_TOKEN);
      }
      // A session with keys of its own is answered with their IDs, never their secrets.
      const keyed = await json('createSession', { body: { keys: 'own' } });
      const own =
        mock.sessions
          .list()
          .find((s) => s.id === keyed.id)
          ?.instance.ownKeys?.list() ?? [];
      expect(own.length).toBeGreaterThan(0);
      expect((keyed.keys as Array<{ keyId: string }>).map((k) => k.keyId)).toEqual(own.map((k) => k.keyId));
      await json('getState', { session: String(keyed.id) });
      for (const text of answered) for (const key of own) expect(text).not.toContain(key.secret);

      // The report, as a resource (listed with the live sessions) and through the prompt that explains it.
      const listed = (await client.listResources()).resources.map((r) => r.uri);
      expect(listed).toContain(`passportal-fake://sessions/${encodeURIComponent(id)}/report.md`);
      const report = await client.readResource({
        uri: `passportal-fake://sessions/${encodeURIComponent(id)}/report.md`,
      });
      const reportText = String((report.contents[0] as { text?: string }).text);
      answered.push(reportText);
      expect(reportText).toContain('pageNum');
      const prompt = await client.getPrompt({ name: 'explain-violations', arguments: { session: id } });
      const promptText = prompt.messages.map((m) => (m.content as { text?: string }).text ?? '').join('\n');
      answered.push(promptText);
      expect(promptText).toContain('listViolations');
      expect(promptText).toContain('pageNum');
      for (const text of answered) expect(text).not.toContain(token);
    });

    it('answers arguments that break the schema with a tool error naming the field, and goes on', async () => {
      const tooMany = await call('listRequests', { limit: 5000 });
      expect(tooMany.isError).toBe(true);
      expect(tooMany.text).toContain('limit');
      const badBody = await call('setClock', { body: { advanceSeconds: 'soon' } });
      expect(badBody.isError).toBe(true);
      expect(badBody.text).toContain('body.advanceSeconds');
      const unknown = await call('getHealth', { sesion: 'x' });
      expect(unknown.isError).toBe(true);
      expect(unknown.text).toContain('sesion: is not an argument of this tool');
      const missing = await call('deleteFault', {});
      expect(missing.isError).toBe(true);
      expect(missing.text).toContain('faultId: is required');
      // A refusal of the admin API is a tool error too, with its message.
      const gone = await call('listViolations', { session: 'no-such-session' });
      expect(gone.isError).toBe(true);
      expect(gone.text).toContain('404');
      expect((await json('getHealth')).status).toBe('ok');
    });

    it('serves the spec, the decisions and the catalogues as resources, and the two prompts', async () => {
      const { resources } = await client.listResources();
      const uris = resources.map((r) => r.uri);
      for (const uri of [
        'passportal-fake://spec/openapi.yaml',
        'passportal-fake://docs/decisions.md',
        'passportal-fake://docs/behaviours.md',
        'passportal-fake://docs/notices.md',
        'passportal-fake://root/report.md',
      ])
        expect(uris).toContain(uri);
      const decisions = await client.readResource({ uri: 'passportal-fake://docs/decisions.md' });
      expect(String((decisions.contents[0] as { text?: string }).text)).toContain('pageNum');
      const { resourceTemplates } = await client.listResourceTemplates();
      expect(resourceTemplates.map((t) => t.uriTemplate)).toContain(
        'passportal-fake://sessions/{session}/report.md',
      );
      const { prompts } = await client.listPrompts();
      expect(prompts.map((p) => p.name).sort()).toEqual(['explain-violations', 'set-up-scenario']);
      const setUp = await client.getPrompt({
        name: 'set-up-scenario',
        arguments: { goal: 'a 503 on the second page' },
      });
      const text = setUp.messages.map((m) => (m.content as { text?: string }).text ?? '').join('\n');
      expect(text).toContain('a 503 on the second page');
      expect(text).toContain('throttled');
    });
  });
}

describe('the HTTP endpoint is an admin call like any other', () => {
  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
  };
  const post = (url: string, headers: Record<string, string> = {}) =>
    fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        ...headers,
      },
      body: JSON.stringify(initialize),
    });

  it('needs the admin token, refuses other sites, serves the root only, and says how to turn it on', async () => {
    const on = await createMockServer({
      fixtures: SMALL_SET,
      logLevel: 'silent',
      adminToken: ADMIN_TOKEN,
      mcpHttp: true,
    });
    const off = await createMockServer({ fixtures: SMALL_SET, logLevel: 'silent' });
    const idle = await createMockServer({ fixtures: SMALL_SET, logLevel: 'silent', mcpHttp: true });
    try {
      const url = await on.listen(0, '127.0.0.1');
      const bearer = { authorization: `Bearer ${ADMIN_TOKEN}` };
      expect((await post(`${url}/__admin/mcp`)).status).toBe(401);
      expect((await post(`${url}/__admin/mcp`, { authorization: 'Bearer wrong' })).status).toBe(401);
      const foreign = await post(`${url}/__admin/mcp`, { ...bearer, origin: 'http://pages.example' });
      expect(foreign.status).toBe(403);
      const session = await on.session();
      const atSession = await post(`${url}/sessions/${session.id}/__admin/mcp`, bearer);
      expect(atSession.status).toBe(404);
      expect(((await atSession.json()) as { message: string }).message).toContain('root URL (/__admin/mcp)');
      const ok = await post(`${url}/__admin/mcp`, bearer);
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as { result: { serverInfo: { name: string } } }).result.serverInfo.name).toBe(
        'passportal-docs-fake',
      );
      const offUrl = await off.listen(0, '127.0.0.1');
      const notOn = await post(`${offUrl}/__admin/mcp`);
      expect(notOn.status).toBe(404);
      expect(((await notOn.json()) as { message: string }).message).toContain('--mcp-http');
      // The app served by another server, the fake never listening itself: its tools have nowhere to call.
      const apart = createServer(idle.app);
      await new Promise<void>((resolve) => apart.listen(0, '127.0.0.1', resolve));
      const port = (apart.address() as AddressInfo).port;
      const unready = await post(`http://127.0.0.1:${port}/__admin/mcp`);
      apart.close();
      expect(unready.status).toBe(404);
      expect(((await unready.json()) as { message: string }).message).toContain(
        'once the fake listens on a port',
      );
    } finally {
      await on.close();
      await off.close();
      await idle.close();
    }
  });
});

describe('passportal-docs-fake mcp, used wrongly', () => {
  it('a URL that is not one, or a port out of range: exit 2 naming the option, nothing on standard output', async () => {
    const [bad, port] = await Promise.all([
      runCli(['mcp', '--url', 'not a url']),
      runCli(['mcp', '--port', '70000']),
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--url "not a url" is not an http(s) URL');
    expect(bad.stdout).toBe('');
    expect(port.code).toBe(2);
    expect(port.stderr).toContain('--port 70000');
  }, 60_000);
});
