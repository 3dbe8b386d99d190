import { isIP } from 'node:net';
import { ConfigError } from '../config.js';

/**
 * The host names the fake answers for over TLS (`tlsHosts`): exact names, IP literals, and
 * `*.domain` patterns that take any subdomain at any depth (so `a.b.passportalmsp.com` is
 * intercepted too; its certificate is made for that name, since a certificate's wildcard covers
 * one label only).
 */
export interface TlsHosts {
  /** The entries as configured, normalised (lower case, no brackets, no trailing dot). */
  readonly entries: readonly string[];
  /** Whether `host` (a name or IP literal, any case, IPv6 with or without brackets) is one of them. */
  matches(host: string): boolean;
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Lower case, without IPv6 brackets or the trailing dot of a fully qualified name. */
export function normaliseHost(host: string): string {
  let value = host.trim().toLowerCase();
  if (value.startsWith('[') && value.endsWith(']')) value = value.slice(1, -1);
  if (value.endsWith('.')) value = value.slice(0, -1);
  return value;
}

const isDnsName = (name: string): boolean =>
  name.length <= 253 && name.split('.').every((l) => LABEL.test(l));

/**
 * An IPv6 literal, as `net.isIPv6` says, but checked by the URL parser when it can: the first
 * `isIP` call in a process compiles a large regular expression (several milliseconds of every
 * start, for the default's `::1`). A zone id (`%eth0`), which URLs do not take, is left to `isIP`.
 */
const isIPv6Literal = (name: string): boolean => {
  if (!name.includes(':')) return false;
  if (name.includes('%')) return isIP(name) === 6;
  try {
    new URL(`http://[${name}]/`);
    return true;
  } catch {
    return false;
  }
};

/** Parses `tlsHosts`; a malformed entry is a ConfigError naming the option. */
export function parseTlsHosts(list: string): TlsHosts {
  const entries: string[] = [];
  for (const raw of list.split(',')) {
    const entry = normaliseHost(raw);
    if (entry === '') continue;
    const name = entry.startsWith('*.') ? entry.slice(2) : entry;
    const ok = entry.startsWith('*.')
      ? isDnsName(name) && name.includes('.')
      : isDnsName(name) || isIPv6Literal(name); // an IPv4 literal is a DNS name by this check
    if (!ok) {
      throw new ConfigError(
        `--tls-hosts (TLS_HOSTS): "${raw.trim()}" is not a host name, an IP address or a *.domain pattern`,
      );
    }
    entries.push(entry);
  }
  if (entries.length === 0) throw new ConfigError('--tls-hosts (TLS_HOSTS): names no host');
  const exact = new Set(entries.filter((e) => !e.startsWith('*.')));
  const suffixes = entries.filter((e) => e.startsWith('*.')).map((e) => e.slice(1));
  return {
    entries,
    matches(host) {
      const name = normaliseHost(host);
      return (
        exact.has(name) ||
        (suffixes.some((s) => name.endsWith(s) && name.length > s.length) && isIP(name) === 0)
      );
    },
  };
}

/**
 * Whether a certificate naming `names` (subject alternative names, `*.` covering exactly one
 * label, as TLS clients check) is valid for `host`.
 */
export function certificateCovers(names: readonly string[], host: string): boolean {
  const name = normaliseHost(host);
  return names.some((entry) => {
    if (!entry.startsWith('*.')) return entry === name;
    const dot = name.indexOf('.');
    return dot > 0 && isIP(name) === 0 && name.slice(dot) === entry.slice(1);
  });
}
