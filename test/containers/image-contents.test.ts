import { request } from 'node:https';
import { GenericContainer, getContainerRuntimeClient } from 'testcontainers';
import { describe, expect, inject, it } from 'vitest';

/**
 * What the image holds and what a user relies on it to do: Node, the app and the few node_modules
 * files the server loads, on an image built FROM scratch (≤ 150 MB), with no package manager, npm,
 * curl or bash; a POSIX shell with cat, awk and grep stays, so Testcontainers' default wait
 * strategy (which checks the ports from inside the container) works, as started here. It runs as
 * `node` over files it cannot change, serves HTTPS on 4443 with a CA generated at start, and every
 * dependency the server loads only on first use (Prism, generation, the pretty logger, YAML, Ajv,
 * certificates, the report writers, undici) is there and loads.
 */

const image = inject('fakeImage');

const IN_CONTAINER = `
const fs = require('node:fs');
const { createRequire } = require('node:module');
const present = ['/usr/local/bin/npm', '/usr/local/bin/npx', '/usr/local/bin/corepack', '/usr/local/bin/yarn',
  '/usr/local/lib/node_modules', '/usr/bin/apt-get', '/usr/bin/dpkg', '/usr/bin/curl', '/usr/bin/wget',
  '/usr/bin/perl', '/usr/bin/bash', '/app/node_modules/@types', '/app/dist/cjs'].filter((p) => fs.existsSync(p));
const writable = (p) => { try { fs.accessSync(p, fs.constants.W_OK); return true; } catch { return false; } };
const fromBundle = createRequire('/app/dist/bundle/cli.js');
const lazy = ['@stoplight/prism-http', '@stoplight/prism-http/dist/mocker/index.js',
  '@stoplight/prism-http/dist/validator/index.js', 'json-schema-faker', 'pino-pretty', 'yaml', 'ajv/dist/2020.js',
  'ajv-formats', 'node-forge', 'undici', 'xmlbuilder', 'ctrf'];
const failed = lazy.flatMap((name) => { try { fromBundle(name); return []; } catch (e) { return [name + ': ' + e.message]; } });
const generated = fromBundle('json-schema-faker').JSONSchemaFaker.generate({ type: 'integer', minimum: 3, maximum: 3 });
console.log(JSON.stringify({ present, uid: process.getuid(), app: writable('/app') || writable('/app/dist/bundle/cli.js'),
  state: writable('/state'), tls: writable('/tls'), failed, generated, version: process.version }));
`;

const httpsGet = (url: string, ca: string): Promise<{ status: number; body: string }> =>
  new Promise((resolve, reject) => {
    request(url, { ca, servername: 'localhost' }, (res) => {
      let body = '';
      res.setEncoding('utf8').on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });

describe.skipIf(!image)('what the image holds', () => {
  it('is Node and the app on a minimal system; serves HTTP, HTTPS and the lazily loaded features', async () => {
    const client = await getContainerRuntimeClient();
    const info = await client.container.dockerode.getImage(image).inspect();
    expect(info.Size).toBeLessThanOrEqual(150e6);
    expect(info.Config.User).toBe('node');
    expect(info.Config.Entrypoint).toEqual(['node', '/app/docker/entrypoint.mjs']);

    // Testcontainers' default wait strategy: both ports listening, checked from the host and from
    // inside the container (with /bin/sh, cat, awk and grep).
    const container = await new GenericContainer(image)
      .withExposedPorts(4010, 4443)
      .withStartupTimeout(60_000)
      .start();
    try {
      // (podman's Docker API shows the image's HEALTHCHECK on its containers only)
      const { Config } = await client.container.dockerode.getContainer(container.getId()).inspect();
      expect(Config.Healthcheck?.Test).toEqual(['CMD', '/bin/sh', '/app/docker/healthcheck.sh']);
      const { exitCode, output } = await container.exec(['node', '-e', IN_CONTAINER]);
      expect(exitCode, output).toBe(0);
      const facts = JSON.parse(output.trim().split('\n').at(-1) ?? '{}');
      expect(facts).toMatchObject({
        present: [],
        uid: 1000,
        app: false,
        state: true,
        tls: true,
        failed: [],
        generated: 3,
      });
      expect(facts.version).toMatch(/^v24\./);

      const base = `http://${container.getHost()}:${container.getMappedPort(4010)}`;
      const ca = await (await fetch(`${base}/__admin/tls/ca.pem`)).text();
      expect(ca).toContain('BEGIN CERTIFICATE');
      const https = await httpsGet(
        `https://${container.getHost()}:${container.getMappedPort(4443)}/__admin/health`,
        ca,
      );
      expect(https.status).toBe(200);
      expect(JSON.parse(https.body).status).toBe('ok');

      const docs = await fetch(`${base}/docs/swagger-ui/swagger-ui.css`);
      expect(docs.status).toBe(200);
      expect(docs.headers.get('content-type')).toContain('text/css');
      // The report writers: CTRF (which validates against the JSON schemas in its own folder) and JUnit.
      const ctrf = await fetch(`${base}/__admin/report?format=ctrf`);
      expect(ctrf.status).toBe(200);
      const report = (await ctrf.json()) as { results: { tool: { name: string } } };
      expect(report.results.tool.name).toBeTruthy();
      const junit = await (await fetch(`${base}/__admin/report?format=junit`)).text();
      expect(junit).toMatch(/^<\?xml/);
    } finally {
      await container.stop({ timeout: 10_000 });
    }
  });
});
