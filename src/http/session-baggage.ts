/**
 * The session a request names in its W3C `baggage` header (https://www.w3.org/TR/baggage/): the
 * list member `passportal-fake-session=<id>`, among any others. A backend instrumented with
 * OpenTelemetry propagates `baggage` from the request it serves to the requests it makes, so a
 * browser test's session reaches the fake through the app under test.
 *
 * Read as the W3C Baggage grammar says: list members separated by commas with optional
 * whitespace, each `key = value` followed by `;`-separated properties (ignored here), the key an
 * HTTP token, the value baggage octets, percent-decoded as UTF-8. Several `baggage` headers are
 * one list (Node joins them with `, `); empty members (`a=1,,b=2`) are allowed, as HTTP lists
 * allow them. A member that does not parse is skipped and named; the others stand, as
 * OpenTelemetry's propagator reads them. Beyond the W3C limit of 8192 bytes the header is ignored
 * whole. Nothing here throws: bad baggage is a notice, never an error.
 */

/** The baggage member that names a session. */
export const SESSION_MEMBER = 'passportal-fake-session';

/** The W3C limit on a baggage header (all of them together). */
export const MAX_BAGGAGE_BYTES = 8192;

export interface SessionBaggage {
  /** The session the baggage names; undefined when it names none (or only ambiguously). */
  session: string | undefined;
  /** What was wrong with the header, one line each (for a `baggageMalformed` notice). */
  problems: string[];
}

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// baggage-octet: %x21 / %x23-2B / %x2D-3A / %x3C-5B / %x5D-7E (no space, `"`, `,`, `;`, `\`).
const VALUE = /^[\x21\x23-\x2b\x2d-\x3a\x3c-\x5b\x5d-\x7e]*$/;
const OWS = /^[ \t]+|[ \t]+$/g;
/** Longest text of a client's quoted back in a problem. */
const QUOTED = 60;

const quote = (text: string) => JSON.stringify(text.length > QUOTED ? `${text.slice(0, QUOTED)}…` : text);

function decodeValue(raw: string): string | undefined {
  if (!VALUE.test(raw)) return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return undefined;
  }
}

/** One list member's key and decoded value, or why it does not parse. */
function parseMember(member: string): { key: string; value: string } | string {
  const [pair = '', ...properties] = member.split(';');
  const equals = pair.indexOf('=');
  if (equals < 0) return `member ${quote(member)} has no "="`;
  const key = pair.slice(0, equals).replace(OWS, '');
  const raw = pair.slice(equals + 1).replace(OWS, '');
  if (!TOKEN.test(key)) return `member ${quote(member)}: the key is not an HTTP token`;
  const value = decodeValue(raw);
  if (value === undefined) {
    return `member ${quote(key)}: the value is not percent-encoded baggage octets`;
  }
  for (const property of properties) {
    const text = property.replace(OWS, '');
    const eq = text.indexOf('=');
    const name = (eq < 0 ? text : text.slice(0, eq)).replace(OWS, '');
    if (!TOKEN.test(name) || (eq >= 0 && decodeValue(text.slice(eq + 1).replace(OWS, '')) === undefined)) {
      return `member ${quote(key)}: property ${quote(text)} does not parse`;
    }
  }
  return { key, value };
}

/** The session `baggage` names (undefined header: none), with what was wrong with it. */
export function sessionOfBaggage(header: string | string[] | undefined): SessionBaggage {
  if (header === undefined) return { session: undefined, problems: [] };
  const text = Array.isArray(header) ? header.join(',') : header;
  if (Buffer.byteLength(text) > MAX_BAGGAGE_BYTES) {
    return {
      session: undefined,
      problems: [
        `the baggage is longer than the W3C limit of ${MAX_BAGGAGE_BYTES} bytes; it was ignored whole`,
      ],
    };
  }
  const problems: string[] = [];
  const named = new Set<string>();
  for (const member of text.split(',')) {
    if (member.replace(OWS, '') === '') continue;
    const parsed = parseMember(member);
    if (typeof parsed === 'string') problems.push(parsed);
    else if (parsed.key === SESSION_MEMBER) named.add(parsed.value);
  }
  if (named.size > 1) {
    problems.push(
      `${SESSION_MEMBER} names ${named.size} sessions (${[...named].map(quote).join(', ')}); none was used`,
    );
    return { session: undefined, problems };
  }
  const [session] = named;
  if (session === '') {
    problems.push(`${SESSION_MEMBER} is empty`);
    return { session: undefined, problems };
  }
  return { session, problems };
}
