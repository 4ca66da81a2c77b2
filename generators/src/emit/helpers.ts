/**
 * The few Handlebars helpers templates may use. Each is a pure function (unit-tested in helpers.test.ts);
 * anything smarter (sorting, $ref resolution, naming) belongs in the view-model builders.
 */

/** `{{json value}}`: JSON literal (stable because view models are built from sorted data). `{{json value 2}}` pretty-prints. */
export function json(value: unknown, indent?: unknown): string {
  const space = typeof indent === 'number' ? indent : undefined;
  return JSON.stringify(value, null, space) ?? 'undefined';
}

/**
 * `{{jsdoc text indent}}`: a JSDoc block (or '' for empty text). Lines are trimmed at the end, `*\/` is escaped.
 * The result has no trailing newline; the first line is not indented (the template places it).
 */
export function jsdoc(text: unknown, indent?: unknown): string {
  const lines = (Array.isArray(text) ? text : [text])
    .filter((t): t is string => typeof t === 'string' && t.trim().length > 0)
    .flatMap((t, i) => (i === 0 ? t : `\n${t}`).split('\n'))
    .map((l) => l.replace(/\*\//g, '*\\/').replace(/\s+$/, ''));
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  while (lines.length > 0 && lines[0] === '') lines.shift();
  if (lines.length === 0) return '';
  const pad = ' '.repeat(typeof indent === 'number' ? indent : 0);
  if (lines.length === 1) return `/** ${lines[0]!} */\n${pad}`;
  return `/**\n${lines.map((l) => `${pad} *${l.length > 0 ? ` ${l}` : ''}`).join('\n')}\n${pad} */\n${pad}`;
}

/** `{{join list ", "}}` */
export function join(list: unknown, separator: unknown): string {
  return Array.isArray(list) ? list.map(String).join(typeof separator === 'string' ? separator : ', ') : '';
}

export const helpers = { json, jsdoc, join } as const;
