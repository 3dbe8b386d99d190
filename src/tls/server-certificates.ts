import type { KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';
import type { SecureContext, TlsOptions } from 'node:tls';
import { LRUCache } from 'lru-cache';
import type { Options } from '../config.js';
import {
  type CertificateAuthority,
  type IssuedCertificate,
  issueServerCertificate,
  openCertificateAuthority,
  openServerCertificate,
  openServerKey,
  serverKeyInTheMaking,
} from './certificate-authority.js';
import { certificateCovers, normaliseHost, parseTlsHosts, type TlsHosts } from './tls-hosts.js';

// node:tls loads when HTTPS is on: every start imports this module, few use it.
const require = createRequire(import.meta.url);
const tls = (): typeof import('node:tls') => require('node:tls') as typeof import('node:tls');

/** Certificates made on demand for names the main certificate does not cover, kept at most. */
const ISSUED_KEPT = 256;

/**
 * The server side of TLS for one fake: the CA, the main certificate (every configured name; a
 * `*.domain` entry covers one label, as clients check) and, for a deeper name such as
 * `a.b.passportalmsp.com`, one made on demand when a client asks for it (by SNI, or as a proxy's
 * CONNECT target), cached and bounded.
 */
export class ServerCertificates {
  private readonly issued = new LRUCache<string, Promise<SecureContext>>({ max: ISSUED_KEPT });
  private readonly mainContext: SecureContext;

  private constructor(
    readonly ca: CertificateAuthority,
    readonly hosts: TlsHosts,
    private readonly serverKey: KeyObject,
    readonly main: IssuedCertificate,
  ) {
    this.mainContext = tls().createSecureContext({ key: main.keyPem, cert: main.certPem });
  }

  /** Opens the CA and the main certificate (from `tlsDir` when kept there, else made and kept). */
  static async open(
    options: Pick<Options, 'tlsHosts' | 'tlsDir' | 'tlsCaCert' | 'tlsCaKey'>,
  ): Promise<ServerCertificates> {
    const hosts = parseTlsHosts(options.tlsHosts);
    const made = serverKeyInTheMaking(options);
    const ca = await openCertificateAuthority(options, hosts.entries);
    const serverKey = await openServerKey(ca, made);
    const main = await openServerCertificate(ca, serverKey, hosts.entries);
    return new ServerCertificates(ca, hosts, serverKey, main);
  }

  /**
   * The context to answer a client asking for `servername`: the main one when it covers the
   * name (or the name is not one the fake serves: the client then refuses it, as it should),
   * else one made for that name.
   */
  contextFor(servername: string | undefined): Promise<SecureContext> {
    const name = servername === undefined ? '' : normaliseHost(servername);
    if (name === '' || certificateCovers(this.main.names, name) || !this.hosts.matches(name)) {
      return Promise.resolve(this.mainContext);
    }
    let context = this.issued.get(name);
    if (context === undefined) {
      context = issueServerCertificate(this.ca, this.serverKey, [name]).then((issued) =>
        tls().createSecureContext({ key: issued.keyPem, cert: issued.certPem }),
      );
      // A failure is not kept: the next handshake tries again.
      context.catch(() => this.issued.delete(name));
      this.issued.set(name, context);
    }
    return context;
  }

  /** Options for a TLS server: the main certificate, and the SNI look-up. */
  serverOptions(): TlsOptions {
    return {
      key: this.main.keyPem,
      cert: this.main.certPem,
      SNICallback: (servername, callback) => {
        this.contextFor(servername).then(
          (context) => callback(null, context),
          (error: Error) => callback(error),
        );
      },
      ALPNProtocols: ['http/1.1'],
    };
  }
}
