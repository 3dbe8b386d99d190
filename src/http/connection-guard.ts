import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Keeps the connection slots (`maxConnections`) for clients that use them. Node's own limit
 * closes every new connection once the count is reached, so one client holding sockets (silent,
 * or sending its headers a byte at a time) locked every other client out until its sockets timed
 * out, and opened them again. Here, at the cap, a new connection takes the slot of a connection
 * with no request in flight (silent, still sending its headers, or idle between requests): the
 * oldest of the address that holds the most such connections, so an address filling the slots
 * loses its own first. A request being answered is never cut; when every slot has one, the new
 * connection is closed, as Node would. (A connection that sends nothing gets Node's 408 after
 * `headersTimeoutMs` and is then closed: `client-error.ts`.)
 */

export interface ConnectionGuardOptions {
  /** Most connections open at once. */
  maxConnections: number;
}

interface Tracked {
  socket: Socket;
  /** Requests read on this connection whose answers are not finished. */
  inFlight: number;
}

export function guardConnections(
  server: Server,
  options: ConnectionGuardOptions,
  // An HTTPS server's requests arrive on the TLS socket, which 'secureConnection' hands over.
  connectionEvent: 'connection' | 'secureConnection' = 'connection',
): void {
  // Insertion order is age order: the first entry of an address is its oldest connection.
  const tracked = new Map<Socket, Tracked>();

  const makeRoom = (): boolean => {
    const idleByAddress = new Map<string, { count: number; oldest: Tracked }>();
    for (const entry of tracked.values()) {
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
    tracked.delete(victim.socket);
    victim.socket.destroy();
    return true;
  };

  server.on(connectionEvent, (socket: Socket) => {
    if (tracked.size >= options.maxConnections && !makeRoom()) {
      socket.destroy();
      return;
    }
    tracked.set(socket, { socket, inFlight: 0 });
    socket.once('close', () => tracked.delete(socket));
  });

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const entry = tracked.get(req.socket);
    if (entry === undefined) return;
    entry.inFlight++;
    res.once('close', () => {
      entry.inFlight--;
    });
  });
}
