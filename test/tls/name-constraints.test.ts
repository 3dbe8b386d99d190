import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_TLS_HOSTS } from '../../src/config.js';
import {
  type CertificateAuthority,
  issueServerCertificate,
  openCertificateAuthority,
  openServerKey,
} from '../../src/tls/certificate-authority.js';
import { parseTlsHosts } from '../../src/tls/tls-hosts.js';

/**
 * The generated CA carries X.509 name constraints (docs/security.md): it can vouch only for the
 * TLS hosts. A certificate for another site signed with its key is refused by Node's TLS and by
 * `openssl verify`, while the fake's own names are accepted; a CA kept from before, without
 * constraints (or whose constraints leave a TLS host out), is used as it is and named in a
 * warning that says how to have a constrained one made.
 */

const scratch = mkdtempSync(join(tmpdir(), 'fake-name-constraints-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const DEFAULT_HOSTS = parseTlsHosts(DEFAULT_TLS_HOSTS).entries;

/** Whether Node's TLS client, trusting only `ca`, accepts `leaf` presented for `servername`. */
async function nodeAccepts(
  ca: CertificateAuthority,
  leaf: { keyPem: string; certPem: string },
  servername: string,
) {
  const server = createServer({ key: leaf.keyPem, cert: leaf.certPem }, (socket) => socket.end());
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  try {
    return await new Promise<string>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port, servername, ca: ca.certPem }, () => {
        socket.end();
        resolve('accepted');
      });
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(`${error.code}: ${error.message}`));
    });
  } finally {
    server.close();
  }
}

/** What `openssl verify` says of `leaf` against `ca` alone. */
function opensslVerify(ca: CertificateAuthority, leaf: { certPem: string }, name: string): string {
  const file = join(scratch, `${name}.pem`);
  writeFileSync(file, leaf.certPem);
  try {
    return execFileSync('openssl', ['verify', '-CAfile', ca.certPath, file], {
      encoding: 'utf8',
      stdio: 'pipe',
    });
  } catch (error) {
    return (
      String((error as { stdout?: string; stderr?: string }).stdout ?? '') +
      String((error as { stderr?: string }).stderr ?? '')
    );
  }
}

describe('the CA generated for the default TLS hosts', () => {
  it('vouches for the fake’s names, and a certificate it signs for any other site is refused by Node and openssl', async () => {
    const ca = await openCertificateAuthority(
      { tlsDir: join(scratch, 'default'), tlsCaCert: undefined, tlsCaKey: undefined },
      DEFAULT_HOSTS,
    );
    expect(ca.warning).toBeUndefined();
    const key = await openServerKey(ca);
    const own = await issueServerCertificate(ca, key, ['us-clover.passportalmsp.com']);
    const loopback = await issueServerCertificate(ca, key, ['localhost', '127.0.0.1', '::1']);
    const other = await issueServerCertificate(ca, key, ['www.bank.example']);
    const otherIp = await issueServerCertificate(ca, key, ['10.9.8.7']);

    expect(await nodeAccepts(ca, own, 'us-clover.passportalmsp.com')).toBe('accepted');
    expect(await nodeAccepts(ca, loopback, 'localhost')).toBe('accepted');
    expect(await nodeAccepts(ca, other, 'www.bank.example')).toMatch(/permitted subtree violation/i);

    expect(opensslVerify(ca, own, 'own')).toContain(': OK');
    expect(opensslVerify(ca, loopback, 'loopback')).toContain(': OK');
    expect(opensslVerify(ca, other, 'other')).toContain('permitted subtree violation');
    expect(opensslVerify(ca, otherIp, 'other-ip')).toContain('permitted subtree violation');
  });

  it('takes --tls-hosts into its constraints', async () => {
    const ca = await openCertificateAuthority(
      { tlsDir: join(scratch, 'custom'), tlsCaCert: undefined, tlsCaKey: undefined },
      [...DEFAULT_HOSTS, 'api.internal.test', '10.0.0.5'],
    );
    const key = await openServerKey(ca);
    const custom = await issueServerCertificate(ca, key, ['api.internal.test', '10.0.0.5']);
    expect(opensslVerify(ca, custom, 'custom')).toContain(': OK');
    const sibling = await issueServerCertificate(ca, key, ['web.internal.test']);
    expect(opensslVerify(ca, sibling, 'sibling')).toContain('permitted subtree violation');
  });
});

describe('a CA kept in --tls-dir', () => {
  it('without name constraints (made before them) is used as it is, with a warning that says how to replace it', async () => {
    const dir = join(scratch, 'old');
    // A CA made with no hosts has no constraints, as every CA made before them.
    const old = await openCertificateAuthority(
      { tlsDir: dir, tlsCaCert: undefined, tlsCaKey: undefined },
      [],
    );
    const again = await openCertificateAuthority(
      { tlsDir: dir, tlsCaCert: undefined, tlsCaKey: undefined },
      DEFAULT_HOSTS,
    );
    expect(again.certPem).toBe(old.certPem);
    expect(again.warning).toContain('has no name constraints');
    expect(again.warning).toContain(`remove ca.pem and ca-key.pem from ${dir}`);
  });

  it('whose constraints leave a TLS host out is named in a warning', async () => {
    const dir = join(scratch, 'narrow');
    await openCertificateAuthority({ tlsDir: dir, tlsCaCert: undefined, tlsCaKey: undefined }, DEFAULT_HOSTS);
    expect(
      (
        await openCertificateAuthority(
          { tlsDir: dir, tlsCaCert: undefined, tlsCaKey: undefined },
          DEFAULT_HOSTS,
        )
      ).warning,
    ).toBeUndefined();
    const wider = await openCertificateAuthority({ tlsDir: dir, tlsCaCert: undefined, tlsCaKey: undefined }, [
      ...DEFAULT_HOSTS,
      'api.internal.test',
    ]);
    expect(wider.warning).toContain('clients that check name constraints refuse');
  });
});
