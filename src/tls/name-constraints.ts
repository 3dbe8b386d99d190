import { isIP } from 'node:net';

/**
 * The X.509 name constraints of the generated CA (RFC 5280, 4.2.1.10): it may vouch only for the
 * TLS host names. Each entry permits a subtree: a name permits itself and every name under it
 * (`passportalmsp.com` for `*.passportalmsp.com`), an IP literal that one address. Built as DER
 * here and read back from a kept CA's DER, so that a start with a kept CA loads no ASN.1 library.
 */

/** The permitted subtree of one TLS host entry: a DNS name, or an IP address (v4 or v6). */
export type Permitted = { dns: string } | { ip: string };

export function permittedOf(entries: readonly string[]): Permitted[] {
  const seen = new Set<string>();
  const out: Permitted[] = [];
  for (const entry of entries) {
    const item: Permitted = isIP(entry) === 0 ? { dns: entry.replace(/^\*\./, '') } : { ip: entry };
    const key = JSON.stringify(item);
    if (!seen.has(key)) {
      seen.add(key);
      out.push(item);
    }
  }
  return out;
}

/** The DER of a length. */
function derLength(n: number): Buffer {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let v = n; v > 0; v = Math.floor(v / 256)) bytes.unshift(v & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

const tlv = (tag: number, value: Buffer): Buffer =>
  Buffer.concat([Buffer.from([tag]), derLength(value.length), value]);

/** The bytes of an IP address and its all-ones mask, as a name constraint's iPAddress holds them. */
function ipWithMask(ip: string): Buffer {
  if (isIP(ip) === 4) {
    return Buffer.from([...ip.split('.').map(Number), 255, 255, 255, 255]);
  }
  const bare = ip.replace(/%.*$/, '');
  const [head = '', tail = ''] = bare.split('::');
  // A trailing IPv4 part (`::ffff:10.0.0.1`) is two groups.
  const groups = (s: string) =>
    s === ''
      ? []
      : s.split(':').flatMap((g) => {
          if (!g.includes('.')) return [g];
          const [a = 0, b = 0, c = 0, d = 0] = g.split('.').map(Number);
          return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
        });
  const h = groups(head);
  const t = groups(tail);
  const all = bare.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  const bytes = Buffer.alloc(32, 0xff);
  for (const [i, g] of all.slice(0, 8).entries()) bytes.writeUInt16BE(Number.parseInt(g, 16) || 0, i * 2);
  return bytes;
}

/** The extension's value (NameConstraints, DER): permittedSubtrees only. */
export function nameConstraintsDer(permitted: readonly Permitted[]): Buffer {
  const subtrees = permitted.map((p) =>
    // GeneralSubtree ::= SEQUENCE { base GeneralName }; dNSName [2] IA5String, iPAddress [7] OCTET STRING.
    tlv(0x30, 'dns' in p ? tlv(0x82, Buffer.from(p.dns, 'ascii')) : tlv(0x87, ipWithMask(p.ip))),
  );
  return tlv(0x30, tlv(0xa0, Buffer.concat(subtrees)));
}

/** One DER element: its tag, and where its value starts and ends. */
function readTlv(der: Buffer, at: number): { tag: number; start: number; end: number } {
  const tag = der[at] ?? 0;
  let length = der[at + 1] ?? 0;
  let start = at + 2;
  if (length & 0x80) {
    const count = length & 0x7f;
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + (der[start + i] ?? 0);
    start += count;
  }
  return { tag, start, end: start + length };
}

/** The OID 2.5.29.30 (nameConstraints), as DER. */
const NAME_CONSTRAINTS_OID = Buffer.from([0x06, 0x03, 0x55, 0x1d, 0x1e]);

/**
 * The permitted subtrees of a certificate (its DER), or undefined when it has no name
 * constraints. Excluded subtrees, and names of other kinds, are not read.
 */
export function permittedIn(certDer: Buffer): Permitted[] | undefined {
  const oid = certDer.indexOf(NAME_CONSTRAINTS_OID);
  if (oid === -1) return undefined;
  let at = oid + NAME_CONSTRAINTS_OID.length;
  if (certDer[at] === 0x01) at = readTlv(certDer, at).end; // critical
  const octets = readTlv(certDer, at);
  const constraints = readTlv(certDer, octets.start);
  const out: Permitted[] = [];
  for (let i = constraints.start; i < constraints.end; ) {
    const part = readTlv(certDer, i);
    if (part.tag === 0xa0) {
      for (let j = part.start; j < part.end; ) {
        const subtree = readTlv(certDer, j);
        const base = readTlv(certDer, subtree.start);
        const value = certDer.subarray(base.start, base.end);
        if (base.tag === 0x82) out.push({ dns: value.toString('ascii').toLowerCase() });
        if (base.tag === 0x87) out.push({ ip: ipOf(value) });
        j = subtree.end;
      }
    }
    i = part.end;
  }
  return out;
}

function ipOf(bytes: Buffer): string {
  if (bytes.length === 8) return [...bytes.subarray(0, 4)].join('.');
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(bytes.readUInt16BE(i).toString(16));
  return groups.join(':');
}

/** Whether `permitted` lets a certificate name every entry (as a host or a wildcard's base). */
export function permitsAll(permitted: readonly Permitted[], entries: readonly string[]): boolean {
  const normal = (ip: string) => ipWithMask(ip).toString('hex');
  return permittedOf(entries).every((want) =>
    permitted.some((p) =>
      'dns' in want
        ? 'dns' in p && (want.dns === p.dns || want.dns.endsWith(`.${p.dns}`))
        : 'ip' in p && normal(want.ip) === normal(p.ip),
    ),
  );
}
