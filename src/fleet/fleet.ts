import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { connect } from 'node:net';
import { hostname } from 'node:os';
import type { Options } from '../config.js';
import { ConfigError } from '../options/parse-value.js';

/**
 * A fleet: replicas that each own the sessions they create. Ownership is written into the ids a
 * replica makes (`f<ordinal>-...` session ids), so any replica knows where a request belongs
 * without a shared store; anything without the mark belongs to replica 0 (the root instance).
 * Peer calls carry a hop marker signed with the fleet secret, so a client cannot pose as a peer
 * and a request is forwarded once at most.
 */

/** The header carrying the hop marker between replicas. */
export const HOP_HEADER = 'x-passportal-fleet-hop';

/** How old a hop marker may be (ms) before it is refused as stale. */
const HOP_MAX_AGE_MS = 60_000;

const SESSION_OWNER = /^f(\d{1,4})-/;
/** An own key ID a replica made: its ordinal as 4 decimal digits, then 60 hex digits. */
const KEY_OWNER = /^(\d{4})[0-9a-f]{60}$/;

export interface Peer {
  ordinal: number;
  /** Base URL of the replica's plain HTTP port (admin and vendor API). */
  url: URL;
}

/** How long a peer has to accept a connection before health says it is down. */
const PROBE_TIMEOUT_MS = 500;

/** The fleet block of the root's health: this replica and whether each peer accepts connections. */
export interface FleetHealth {
  ordinal: number;
  /** Whether this replica was drained (`POST /__admin/fleet/drain`): it creates no more sessions. */
  draining: boolean;
  peers: Array<{ ordinal: number; url: string; up: boolean }>;
}

/** Whether `url`'s host accepts a TCP connection within half a second. */
function accepts(url: URL): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname, port: Number(url.port || 80) });
    const done = (up: boolean): void => {
      socket.destroy();
      resolve(up);
    };
    socket.setTimeout(PROBE_TIMEOUT_MS, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * Combines the replicas' JSON reports of one run into the run's report in `format`, `extra` added
 * to the JSON (the server's harness builds and renders reports and knows their formats; the fleet
 * only gathers them).
 */
export interface FleetRunReports<Format extends string = string> {
  /** Whether a run's report is rendered in `format` (another is the one process's 400). */
  renders(format: string): format is Format;
  combine(
    label: string,
    reports: readonly unknown[],
    format: Format,
    extra: Record<string, unknown>,
  ): { text: string; mediaType: string };
}

export class Fleet {
  readonly ordinal: number;
  readonly peers: ReadonlyMap<number, Peer>;
  readonly #secret: string;
  #draining = false;
  /** How a run's report is combined from the replicas' (set by the server that starts the fleet). */
  runReports: FleetRunReports | undefined = undefined;

  constructor(ordinal: number, peers: ReadonlyMap<number, Peer>, secret: string) {
    this.ordinal = ordinal;
    this.peers = peers;
    this.#secret = secret;
  }

  /** A new session id owned by this replica: `f<ordinal>-` and 128 random bits, URL-safe. */
  newSessionId(): string {
    return `f${this.ordinal}-${randomBytes(16).toString('base64url')}`;
  }

  /** Whether this replica was drained: it creates no more sessions, and serves those it owns. */
  get draining(): boolean {
    return this.#draining;
  }

  /** Drains this replica: from now on it refuses to create sessions (503 `replicaDraining`). */
  drain(): void {
    this.#draining = true;
  }

  /** The replica owning a session id: its mark, or 0 when it has none. */
  ownerOfSession(id: string): number {
    const match = SESSION_OWNER.exec(id);
    return match === null ? 0 : Number(match[1]);
  }

  /** What the tokens this replica issues start with: `f<ordinal>-`. */
  get tokenMark(): string {
    return `f${this.ordinal}-`;
  }

  /** The replica owning an own key ID (`0002` + 60 hex digits), or 0 for any other key. */
  ownerOfKey(keyId: string): number {
    const match = KEY_OWNER.exec(keyId);
    return match === null ? 0 : Number(match[1]);
  }

  /** The replica that issued a token (`f<ordinal>-...`), or 0 for a token without the mark. */
  ownerOfToken(token: string): number {
    return this.ownerOfSession(token);
  }

  /** Every replica of the fleet, this one included, by ordinal. */
  peersByOrdinal(): Peer[] {
    return [...this.peers.values()].sort((a, b) => a.ordinal - b.ordinal);
  }

  /** This replica's ordinal and which peers accept connections (probed at once, half a second each). */
  async health(): Promise<FleetHealth> {
    const peers = this.peersByOrdinal();
    const up = await Promise.all(
      peers.map((peer) => (peer.ordinal === this.ordinal ? true : accepts(peer.url))),
    );
    return {
      ordinal: this.ordinal,
      draining: this.#draining,
      peers: peers.map((peer, index) => ({
        ordinal: peer.ordinal,
        url: peer.url.origin,
        up: up[index] ?? false,
      })),
    };
  }

  /** The marker this replica sends with a request it forwards. */
  hopMarker(method: string, path: string, now = Date.now()): string {
    return `${this.ordinal}.${now}.${this.#sign(`${this.ordinal}.${now}.${method}.${path}`)}`;
  }

  /** Whether a received marker is signed with the fleet secret, names a peer and is fresh. */
  verifyHop(marker: string, method: string, path: string, now = Date.now()): boolean {
    const parts = marker.split('.');
    if (parts.length !== 3) return false;
    const [from, ms, mac] = parts as [string, string, string];
    if (!/^\d{1,4}$/.test(from) || !/^\d{1,16}$/.test(ms) || !/^[0-9a-f]{64}$/.test(mac)) return false;
    if (!this.peers.has(Number(from))) return false;
    if (Math.abs(now - Number(ms)) > HOP_MAX_AGE_MS) return false;
    const expected = Buffer.from(this.#sign(`${from}.${ms}.${method}.${path}`), 'hex');
    return timingSafeEqual(expected, Buffer.from(mac, 'hex'));
  }

  #sign(text: string): string {
    return createHmac('sha256', this.#secret).update(text).digest('hex');
  }
}

/**
 * The fleet the options describe, or undefined without `fleetPeers` (one process, as ever).
 * Bad input throws a ConfigError naming the option (the command exits 2).
 */
export function fleetOf(
  options: Pick<Options, 'fleetPeers' | 'fleetOrdinal' | 'fleetSecret'>,
  host = hostname(),
): Fleet | undefined {
  if (options.fleetPeers === undefined) {
    if (options.fleetOrdinal !== undefined || options.fleetSecret !== undefined)
      throw new ConfigError('option --fleet-ordinal and --fleet-secret need --fleet-peers (FLEET_PEERS)');
    return undefined;
  }
  const peers = new Map<number, Peer>();
  for (const entry of options.fleetPeers.split(',')) {
    const item = entry.trim();
    const match = /^(\d{1,4})=(.+)$/.exec(item);
    if (match === null)
      throw new ConfigError(
        `option --fleet-peers (FLEET_PEERS): "${item}" is not ordinal=URL (e.g. 0=http://fake-0.fake:4010)`,
      );
    const ordinal = Number(match[1]);
    let url: URL;
    try {
      url = new URL(match[2] as string);
    } catch {
      throw new ConfigError(
        `option --fleet-peers (FLEET_PEERS): "${match[2]}" of replica ${ordinal} is not a URL`,
      );
    }
    if (url.protocol !== 'http:')
      throw new ConfigError(
        `option --fleet-peers (FLEET_PEERS): replica ${ordinal} must have an http:// URL (its plain HTTP port)`,
      );
    if (peers.has(ordinal))
      throw new ConfigError(`option --fleet-peers (FLEET_PEERS): replica ${ordinal} is given twice`);
    peers.set(ordinal, { ordinal, url });
  }
  if (!peers.has(0))
    throw new ConfigError('option --fleet-peers (FLEET_PEERS): replica 0 (the root instance) is missing');
  let ordinal = options.fleetOrdinal;
  if (ordinal === undefined) {
    const ending = /(\d{1,4})$/.exec(host);
    if (ending === null)
      throw new ConfigError(
        `option --fleet-ordinal (FLEET_ORDINAL) is needed: the host name "${host}" does not end in a number`,
      );
    ordinal = Number(ending[1]);
  }
  if (!peers.has(ordinal))
    throw new ConfigError(
      `option --fleet-ordinal (FLEET_ORDINAL): replica ${ordinal} is not in --fleet-peers`,
    );
  if (options.fleetSecret === undefined || options.fleetSecret.length < 16)
    throw new ConfigError(
      'option --fleet-secret (FLEET_SECRET) is needed with --fleet-peers: at least 16 characters, the same on every replica',
    );
  return new Fleet(ordinal, peers, options.fleetSecret);
}
