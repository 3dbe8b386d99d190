/**
 * HTML-entity encoding as the live service applies it to client names in list rows
 * (`Matt's Museum` comes back as `Matt&#039;s Museum`): PHP's `htmlspecialchars` with quotes.
 */
const ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#039;',
};

export function encodeHtmlEntities(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ENTITIES[ch] ?? ch);
}

/**
 * The inverse, for names read from the live service (capture stores names as the fake keeps
 * them, unencoded): the five entities above, `&#39;`, and decimal or hex character references.
 */
export function decodeHtmlEntities(text: string): string {
  return text.replace(
    /&(amp|lt|gt|quot|#(\d{1,7})|#x([0-9a-f]{1,6}));/gi,
    (whole, name: string, dec?: string, hex?: string) => {
      if (dec !== undefined || hex !== undefined) {
        const code = dec !== undefined ? Number(dec) : Number.parseInt(hex ?? '', 16);
        return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
      }
      return { amp: '&', lt: '<', gt: '>', quot: '"' }[name.toLowerCase()] ?? whole;
    },
  );
}
