import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { LoadedSpec } from '../contract/spec-document.js';
import { createMcpServerFor } from './server.js';

/**
 * The MCP server on the fake's own port, at `/__admin/mcp` (option `mcpHttp`): the Streamable
 * HTTP transport, stateless (each POST one exchange, answered as JSON; nothing kept between
 * requests, so nothing grows with clients). It sits behind the admin API's origin guard and token
 * check like every admin call (http/instance-router.ts), and holds no identity of its own: each
 * tool call is an admin call to this fake made with the caller's own `Authorization`, so the
 * admin API decides for every call what this caller may see and do, as it does for the caller's
 * direct calls (and will for a tenant's token once tenants exist).
 */

export interface McpEndpoint {
  /** False until the fake listens: tool calls go to its port. */
  ready(): boolean;
  /** Serves one request; `publicUrl` is the fake's URL as the caller reached it. */
  handle(req: IncomingMessage & { body?: unknown }, res: ServerResponse, publicUrl: string): Promise<void>;
}

/** `selfUrl`: where this fake listens (plain HTTP), which tool calls go to; undefined until it listens. */
export function createMcpEndpoint(spec: LoadedSpec, selfUrl: () => string | undefined): McpEndpoint {
  return {
    ready: () => selfUrl() !== undefined,
    async handle(req, res, publicUrl) {
      const url = selfUrl();
      if (url === undefined)
        throw new Error('the fake is not listening on a port: the MCP endpoint calls it there');
      const authorization = req.headers.authorization;
      const adminToken = /^Bearer[ \t]+(.+)$/i.exec(authorization ?? '')?.[1]?.trim();
      const server = createMcpServerFor(spec, url, adminToken, publicUrl);
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      res.once('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req, res, req.body);
    },
  };
}
