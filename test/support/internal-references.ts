/**
 * Internal references a merchant should never meet on a page (D293 client pages carry no decision numbers): decision and issue numbers, "the original (or
 * source) specification". Used by test/spec/merchant-words.test.ts (the docs site) and the checkout's browser tests.
 */

/** What a merchant should not meet: the brief's three, and the older decision series (A26, B15). */
export const INTERNAL_REFERENCES: readonly RegExp[] = [
  /\bD\d{2,3}\b/,
  /\bissues? \d+/i,
  /\b(original|source) specification/i,
  /\bdecisions? [A-Z]\d+/i,
];

/** The text a reader sees on a page: no scripts, styles or markup; entities decoded. */
export function visibleText(html: string): string {
  return html
    .replace(/<(script|style)\b[\s\S]*?<\/\1>/gi, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&(?:#(\d+)|#x([0-9a-f]+)|(amp|lt|gt|quot|apos|nbsp));/gi, (_m, dec: string, hex: string, name: string) => {
      if (dec) return String.fromCodePoint(Number(dec));
      if (hex) return String.fromCodePoint(Number.parseInt(hex, 16));
      return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' }[name.toLowerCase()] ?? ' ';
    })
    .replace(/\s+/g, ' ');
}

/** `where: ...words around it...` for each internal reference in `text`. */
export function findInternalReferences(where: string, text: string): string[] {
  return INTERNAL_REFERENCES.flatMap((pattern) =>
    [...text.matchAll(new RegExp(pattern.source, `${pattern.flags}g`))].map(
      (m) => `${where}: ...${text.slice(Math.max(0, m.index - 60), m.index + m[0].length + 20)}...`,
    ),
  );
}
