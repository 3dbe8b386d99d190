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
