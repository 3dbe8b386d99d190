import type { ChildProcess } from 'node:child_process';
import { killChild, spawnCli, waitForListening } from './run-cli.js';

/** The replicas' loopback ports, by ordinal. */
export type FleetPorts = ReadonlyMap<number, number> | readonly number[];

const entriesOf = (ports: FleetPorts): Array<[number, number]> =>
  Array.isArray(ports)
    ? ports.map((port, ordinal) => [ordinal, port])
    : [...(ports as ReadonlyMap<number, number>)];

/** `--fleet-peers` for replicas on loopback: `0=http://127.0.0.1:<port>,1=...`. */
export const fleetPeers = (ports: FleetPorts): string =>
  entriesOf(ports)
    .map(([ordinal, port]) => `${ordinal}=http://127.0.0.1:${port}`)
    .join(',');

/**
 * Starts replica `ordinal` of a fleet on loopback (the fake from source, on its port of `ports`,
 * every replica its peer, the fleet secret in `FLEET_SECRET`) with `args` of its own (fixtures, a
 * state file...), and resolves once it listens (a replica that does not start is stopped).
 */
export async function startReplica(
  ordinal: number,
  ports: FleetPorts,
  secret: string,
  args: string[] = [],
): Promise<ChildProcess> {
  const port = new Map(entriesOf(ports)).get(ordinal);
  if (port === undefined) throw new Error(`replica ${ordinal} has no port`);
  const child = spawnCli(
    ['--port', String(port), ...args, '--fleet-peers', fleetPeers(ports), '--fleet-ordinal', String(ordinal)],
    { FLEET_SECRET: secret },
  );
  try {
    await waitForListening(child);
  } catch (error) {
    await killChild(child);
    throw error;
  }
  return child;
}
