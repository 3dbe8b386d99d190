/**
 * What the MCP server is made of, without a transport: a new admin operation in the spec is a new
 * tool (and `GET /__admin/har` brings the HAR resources) with no line of the server changed; the
 * hints follow the operation; the prompts name only tools the spec makes; answers lose their
 * tokens and secrets wherever they hide, and keep the ids an assistant needs.
 */
import { describe, expect, it } from 'vitest';
import { loadSpec, type OpenApiDocument } from '../../src/contract/spec-document.js';
import { Redaction } from '../../src/mcp/redaction.js';
import {
  listResources,
  listResourceTemplates,
  PROMPT_TOOLS,
  PROMPTS,
  promptText,
} from '../../src/mcp/resources.js';
import { adminTools, callOf } from '../../src/mcp/tools.js';

const spec = loadSpec().document;

/** The spec without `/__admin/har` (whether or not it has it now). */
function withoutHar(): OpenApiDocument {
  const document = structuredClone(spec) as OpenApiDocument;
  delete document.paths['/__admin/har'];
  return document;
}

/** The spec with one more admin operation, as another change would add it. */
function withHar(): OpenApiDocument {
  const document = withoutHar();
  document.paths['/__admin/har'] = {
    get: {
      tags: ['admin'],
      operationId: 'getHar',
      summary: 'The journal as HAR',
      parameters: [{ name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 500 } }],
      responses: { '200': { description: 'HAR' } },
    },
  };
  return document;
}

describe('the tools are made from the spec', () => {
  it('a new admin operation is a new tool, with its bounds, and the HAR resources appear with GET /__admin/har', () => {
    expect(adminTools(withoutHar()).some((t) => t.name === 'getHar')).toBe(false);
    const har = adminTools(withHar()).find((t) => t.name === 'getHar');
    expect(har?.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
    });
    expect(har?.inputSchema.properties.limit).toEqual({ type: 'integer', minimum: 1, maximum: 500 });
    expect(listResourceTemplates(withoutHar()).map((t) => t.uriTemplate)).not.toContain(
      'passportal-fake://sessions/{session}/har',
    );
    expect(listResourceTemplates(withHar()).map((t) => t.uriTemplate)).toContain(
      'passportal-fake://sessions/{session}/har',
    );
    expect(listResources(withHar()).map((r) => r.uri)).toContain('passportal-fake://root/har');
  });

  it('hints: GET read-only; DELETE and x-destructive destructive; creating is not', () => {
    const hints = Object.fromEntries(adminTools(spec).map((t) => [t.name, t.annotations]));
    expect(hints.listViolations).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(hints.clearFaults).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
    });
    for (const name of ['resetState', 'loadFixtures', 'revokeTokens'])
      expect(hints[name]?.destructiveHint, name).toBe(true);
    expect(hints.createFault).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
    });
    for (const tool of adminTools(spec)) expect(JSON.stringify(tool.inputSchema)).not.toContain('$ref');
  });

  it("a tool's arguments make its call: path and query parameters in place, the session as a prefix", () => {
    const tool = adminTools(spec).find((t) => t.name === 'deleteFault');
    if (tool === undefined) throw new Error('no deleteFault tool');
    expect(callOf(tool, { faultId: 'a/b', session: 's1' })).toEqual({
      method: 'DELETE',
      path: '/faults/a%2Fb',
      body: undefined,
      session: 's1',
    });
    const list = adminTools(spec).find((t) => t.name === 'listRequests');
    if (list === undefined) throw new Error('no listRequests tool');
    expect(callOf(list, { limit: 5, violations: true }).path).toBe('/requests?violations=true&limit=5');
  });

  it('the prompts name only tools the spec makes', () => {
    const names = new Set(adminTools(spec).map((t) => t.name));
    for (const name of PROMPT_TOOLS) expect(names.has(name), name).toBe(true);
    const texts = PROMPTS.map((p) => promptText(p.name, { goal: 'g', session: 's' }) ?? '').join('\n');
    const mentioned = [...texts.matchAll(/\b([a-z]+[A-Z]\w+)\b/g)].map((m) => m[1] as string);
    for (const name of mentioned) expect(PROMPT_TOOLS as readonly string[], name).toContain(name);
  });
});

describe('redaction', () => {
  const redaction = new Redaction(['the-admin-token-1234']);

  it('takes out secrets by name, wherever else they appear, and those named in texts', () => {
    const answer = redaction.value({
      id: 'Zm9vYmFyYmF6cXV4cXV1eA',
      headers: { 'x-access-token': 'tok-0123456789abcdef', 'x-hash': 'ab12cd34' },
      apiKeys: [{ keyId: 'k1', secret: 'shh-0123456789' }],
      response: { body: '{"access_token":"tok2-0123456789abc","expiry_time":1}' },
      note: 'sent tok-0123456789abcdef and shh-0123456789 with Bearer the-admin-token-1234',
    });
    const text = JSON.stringify(answer);
    for (const secret of [
      'tok-0123456789abcdef',
      'ab12cd34',
      'shh-0123456789',
      'tok2-0123456789abc',
      'the-admin-token-1234',
    ])
      expect(text).not.toContain(secret);
    // Ids an assistant passes on stay.
    expect(text).toContain('Zm9vYmFyYmF6cXV4cXV1eA');
    expect(text).toContain('"keyId":"k1"');
    expect(redaction.text('x-access-token: abcdefgh12345 then abcdefgh12345')).toBe(
      'x-access-token: (redacted) then (redacted)',
    );
  });
});
