import { createPrivateKey, X509Certificate } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { openCertificateAuthority } from '../../src/tls/certificate-authority.js';
import { ServerCertificates } from '../../src/tls/server-certificates.js';
import { certificateCovers, parseTlsHosts } from '../../src/tls/tls-hosts.js';
import { runCli, spawnCli, waitForListening } from '../support/run-cli.js';
import { SMALL_SET } from '../support/test-server.js';

/** The local CA: made once and kept, or supplied; bad TLS configuration named by its option. */

const HOSTS = 'localhost,127.0.0.1,::1,*.passportalmsp.com,*.mypasswordapp.com';
const scratch = mkdtempSync(join(tmpdir(), 'fake-ca-'));
const dirA = join(scratch, 'a');
const dirB = join(scratch, 'b');
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const modeOf = (path: string) => statSync(path).mode & 0o777;

async function configError(work: () => Promise<unknown>): Promise<string> {
  const error = await work().then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigError);
  return (error as Error).message;
}

let first: ServerCertificates;

beforeAll(async () => {
  first = await ServerCertificates.open({
    tlsHosts: HOSTS,
    tlsDir: dirA,
    tlsCaCert: undefined,
    tlsCaKey: undefined,
  });
}, 60_000);

describe('a CA generated on first start', () => {
  it('is kept in --tls-dir, its keys readable by their owner only, and used again on the next start', async () => {
    expect(first.ca.generated).toBe(true);
    expect(first.ca.certPath).toBe(join(dirA, 'ca.pem'));
    expect(modeOf(join(dirA, 'ca-key.pem'))).toBe(0o600);
    expect(modeOf(join(dirA, 'server-key.pem'))).toBe(0o600);
    expect(modeOf(dirA)).toBe(0o700);
    const again = await ServerCertificates.open({
      tlsHosts: HOSTS,
      tlsDir: dirA,
      tlsCaCert: undefined,
      tlsCaKey: undefined,
    });
    expect(again.ca.generated).toBe(false);
    expect(again.ca.certPem).toBe(first.ca.certPem);
    expect(again.main.certPem).toBe(first.main.certPem);
  });

  it('is a CA, and signs a server certificate for every configured name', () => {
    const ca = new X509Certificate(first.ca.certPem);
    expect(ca.ca).toBe(true);
    const server = new X509Certificate(first.main.certPem);
    expect(server.ca).toBe(false);
    expect(server.checkIssued(ca)).toBe(true);
    expect(server.verify(ca.publicKey)).toBe(true);
    expect(server.subjectAltName).toBe(
      'DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1, DNS:*.passportalmsp.com, DNS:*.mypasswordapp.com',
    );
    expect(server.checkHost('us-clover.passportalmsp.com')).toBe('*.passportalmsp.com');
    expect(server.checkHost('mycompany.mypasswordapp.com')).toBe('*.mypasswordapp.com');
    expect(server.checkHost('a.b.passportalmsp.com')).toBeUndefined();
    expect(server.checkIP('127.0.0.1')).toBe('127.0.0.1');
  });
});

describe('a supplied CA (--tls-ca-cert, --tls-ca-key)', () => {
  it('signs the server certificates, and its key is never copied into --tls-dir', async () => {
    const supplied = await ServerCertificates.open({
      tlsHosts: 'us-clover.passportalmsp.com',
      tlsDir: dirB,
      tlsCaCert: join(dirA, 'ca.pem'),
      tlsCaKey: join(dirA, 'ca-key.pem'),
    });
    expect(supplied.ca.generated).toBe(false);
    expect(supplied.ca.certPath).toBe(join(dirA, 'ca.pem'));
    expect(
      new X509Certificate(supplied.main.certPem).checkIssued(new X509Certificate(first.ca.certPem)),
    ).toBe(true);
    expect(readdirSync(dirB).sort()).toEqual(expect.arrayContaining(['server-key.pem']));
    expect(readdirSync(dirB)).not.toContain('ca-key.pem');
    for (const file of readdirSync(dirB)) {
      if (file !== 'server-key.pem')
        expect(readFileSync(join(dirB, file), 'utf8')).not.toContain('PRIVATE KEY');
    }
  });

  it.each([
    [
      'a key that does not match',
      () => ({ tlsCaCert: join(dirA, 'ca.pem'), tlsCaKey: join(dirB, 'server-key.pem') }),
      /--tls-ca-key \(TLS_CA_KEY\) .*server-key\.pem: the key does not match the certificate in --tls-ca-cert/,
    ],
    [
      'an unreadable certificate',
      () => ({ tlsCaCert: join(scratch, 'missing.pem'), tlsCaKey: join(dirA, 'ca-key.pem') }),
      /--tls-ca-cert \(TLS_CA_CERT\): cannot read .*missing\.pem \(ENOENT\)/,
    ],
    [
      'a certificate that is not PEM',
      () => ({ tlsCaCert: join(dirA, 'ca-key.pem'), tlsCaKey: join(dirA, 'ca-key.pem') }),
      /--tls-ca-cert \(TLS_CA_CERT\) .*: not a PEM certificate/,
    ],
    [
      'a server certificate, not a CA',
      () => ({ tlsCaCert: serverCertFile(), tlsCaKey: join(dirA, 'server-key.pem') }),
      /not a CA certificate/,
    ],
    [
      'a certificate without its key',
      () => ({ tlsCaCert: join(dirA, 'ca.pem'), tlsCaKey: undefined }),
      /--tls-ca-cert \(TLS_CA_CERT\) needs --tls-ca-key/,
    ],
  ])('refuses %s, naming the option', async (_what, files, message) => {
    const text = await configError(() => openCertificateAuthority({ tlsDir: dirB, ...files() }));
    expect(text).toMatch(message);
  });

  function serverCertFile(): string {
    const path = join(scratch, 'server-cert.pem');
    writeFileSync(path, first.main.certPem);
    return path;
  }
});

describe('a damaged --tls-dir', () => {
  it('with a CA certificate but no key is refused, saying what to do', async () => {
    const dir = join(scratch, 'half');
    const ca = await openCertificateAuthority({ tlsDir: dir, tlsCaCert: undefined, tlsCaKey: undefined });
    expect(() => createPrivateKey(readFileSync(join(dir, 'ca-key.pem')))).not.toThrow();
    rmSync(join(dir, 'ca-key.pem'));
    const text = await configError(() =>
      openCertificateAuthority({ tlsDir: dir, tlsCaCert: undefined, tlsCaKey: undefined }),
    );
    expect(text).toContain('--tls-dir (TLS_DIR)');
    expect(text).toContain('ca.pem without ca-key.pem');
    expect(ca.generated).toBe(true);
  }, 30_000);
});

describe('--tls-hosts', () => {
  const hosts = parseTlsHosts(HOSTS);
  it.each([
    ['us-clover.passportalmsp.com', true],
    ['US-Clover.PassportalMSP.com.', true],
    ['a.b.passportalmsp.com', true],
    ['mycompany.mypasswordapp.com', true],
    ['passportalmsp.com', false],
    ['evilpassportalmsp.com', false],
    ['example.com', false],
    ['localhost', true],
    ['[::1]', true],
    ['127.0.0.2', false],
  ])('%s is intercepted: %s', (host, expected) => {
    expect(hosts.matches(host)).toBe(expected);
  });

  it('a certificate wildcard covers one label only, as clients check', () => {
    expect(certificateCovers(['*.passportalmsp.com'], 'us-clover.passportalmsp.com')).toBe(true);
    expect(certificateCovers(['*.passportalmsp.com'], 'a.b.passportalmsp.com')).toBe(false);
  });

  it.each(['exa mple.com', '*.com', 'http://x.com', '*'])('refuses %j, naming the option', (entry) => {
    expect(() => parseTlsHosts(entry)).toThrow(/--tls-hosts \(TLS_HOSTS\)/);
  });
});

describe('the command line', () => {
  it('exits 2 naming the option when the CA cannot be read', async () => {
    const result = await runCli([
      '--port',
      '0',
      '--https-port',
      '0',
      '--tls-ca-cert',
      join(scratch, 'nope.pem'),
      '--tls-ca-key',
      join(scratch, 'nope-key.pem'),
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--tls-ca-cert (TLS_CA_CERT): cannot read');
  });

  it('prints the HTTPS URL and where the CA certificate is at start', async () => {
    const child = spawnCli(['--port', '0', '--https-port', '0', '--tls-dir', dirA, '--fixtures', SMALL_SET]);
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
    });
    try {
      const url = await waitForListening(child);
      await expect.poll(() => out, { timeout: 10_000 }).toContain(join(dirA, 'ca.pem'));
      expect(out).toMatch(/HTTPS on https:\/\/127\.0\.0\.1:\d+/);
      const res = await fetch(`${url}/__admin/tls/ca.pem`);
      expect(await res.text()).toBe(first.ca.certPem);
    } finally {
      child.kill('SIGTERM');
    }
  }, 30_000);
});
