import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Keeps the connection slots (`maxConnections`) for clients that use them. Node's own limit
 * closes every new connection once the count is reached, so one client holding sockets (silent,
 * or sending its headers a byte at a time) locked every other client out until its sockets timed
 * out, and opened them again. Here, at the cap, a new connection takes the slot of a connection
 * with no request in flight (silent, in its TLS handshake, still sending its headers, or idle
 * between requests): the
 * oldest of the address that holds the most such connections, so an address filling the slots
 * loses its own first. A request being answered is never cut; when every slot has one, the new
 * connection is closed, as Node would. (A connection that sends nothing gets Node's 408 after
 * `headersTimeoutMs` and is then closed: `client-error.ts`; one that does not finish its TLS
 * handshake is closed after `headersTimeoutMs` by the HTTPS server's `handshakeTimeout`.)
 */

export interface ConnectionGuardOptions {
  /** Most connections open at once, on every port the guard watches together. */
  maxConnections: number;
}

interface Tracked {
  /** The accepted TCP socket (for HTTPS, the one under the TLS socket). */
  socket: Socket;
  /** Requests read on this connection whose answers are not finished. */
  inFlight: number;
}

/**
 * One pool of `maxConnections` slots for every port it watches (the HTTP port and the HTTPS
 * port), so a flood of sockets on one port is counted with the other's and cannot lock clients
 * out of either. A connection takes its slot when it is accepted: on the HTTPS port, before its
 * TLS handshake (a socket that never finishes it is as idle as a silent one, and evictable; the
 * HTTPS server's `handshakeTimeout` closes it after `headersTimeoutMs`).
 */
export class ConnectionGuard {
  // Insertion order is age order: the first entry of an address is its oldest connection.
  readonly #tracked = new Map<Socket, Tracked>();
  /** TLS sockets by the TCP socket's address and port, until the handshake hands them over. */
  readonly #handshaking = new Map<string, Tracked>();
  readonly #byTls = new WeakMap<Socket, Tracked>();

  constructor(readonly options: ConnectionGuardOptions) {}

  /** Connections open now, on every port watched. */
  get size(): number {
    return this.#tracked.size;
  }

  /** Guards a plain HTTP server: requests arrive on the accepted socket. */
  watch(server: Server): void {
    server.on('connection', (socket: Socket) => this.#admit(socket));
    server.on('request', (req: IncomingMessage, res: ServerResponse) =>
      this.#count(this.#tracked.get(req.socket), res),
    );
  }

  /**
   * Guards an HTTPS server: the slot is taken at accept ('connection', the TCP socket); the TLS
   * socket the handshake hands over ('secureConnection') is matched to it by remote address and
   * port, which are the TCP socket's.
   */
  watchTls(server: Server): void {
    server.on('connection', (socket: Socket) => {
      const entry = this.#admit(socket);
      if (entry === undefined) return;
      const key = endpoint(socket);
      this.#handshaking.set(key, entry);
      socket.once('close', () => {
        if (this.#handshaking.get(key) === entry) this.#handshaking.delete(key);
      });
    });
    server.on('secureConnection', (tls: Socket) => {
      const key = endpoint(tls);
      const entry = this.#handshaking.get(key);
      if (entry === undefined) return;
      this.#handshaking.delete(key);
      this.#byTls.set(tls, entry);
    });
    server.on('request', (req: IncomingMessage, res: ServerResponse) =>
      this.#count(this.#byTls.get(req.socket), res),
    );
  }

  #admit(socket: Socket): Tracked | undefined {
    if (this.#tracked.size >= this.options.maxConnections && !this.#makeRoom()) {
      socket.destroy();
      return undefined;
    }
    const entry = { socket, inFlight: 0 };
    this.#tracked.set(socket, entry);
    socket.once('close', () => this.#tracked.delete(socket));
    return entry;
  }

  #count(entry: Tracked | undefined, res: ServerResponse): void {
    if (entry === undefined) return;
    entry.inFlight++;
    res.once('close', () => {
      entry.inFlight--;
    });
  }

  #makeRoom(): boolean {
    const idleByAddress = new Map<string, { count: number; oldest: Tracked }>();
    for (const entry of this.#tracked.values()) {
      if (entry.inFlight > 0) continue;
      const address = entry.socket.remoteAddress ?? '';
      const seen = idleByAddress.get(address);
      if (seen) seen.count++;
      else idleByAddress.set(address, { count: 1, oldest: entry });
    }
    let victim: Tracked | undefined;
    let most = 0;
    for (const { count, oldest } of idleByAddress.values()) {
      if (count > most) {
        most = count;
        victim = oldest;
      }
    }
    if (victim === undefined) return false;
    this.#tracked.delete(victim.socket);
    victim.socket.destroy();
    return true;
  }
}

const endpoint = (socket: Socket): string => `${socket.remoteAddress ?? ''}|${socket.remotePort ?? ''}`;
