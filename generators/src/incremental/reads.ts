/**
 * Digests of what an emitter reads (D442 request validators reused by the schemas their requests reach), so its output is reused after an edit it cannot see: the parts of the
 * model it reads (as JSON) and every component schema they reach through `$ref`, transitively. A `$ref` this cannot
 * follow (not `#/components/schemas/<name>`, or naming no schema) makes the digest cover every schema: never too
 * little.
 */
import { unescapePointerToken } from '../util/json.js';
import { digestText } from './digest.js';

const ANY_REF = /"\$ref":"/g;
const SCHEMA_REF = /"\$ref":"#\/components\/schemas\/((?:[^"\\]|\\.)*)"/g;

function schemaName(token: string, known: ReadonlyMap<string, unknown>): string | undefined {
  const name = unescapePointerToken(JSON.parse(`"${token}"`) as string);
  if (known.has(name)) return name;
  try {
    const decoded = decodeURIComponent(name);
    return known.has(decoded) ? decoded : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Digest of `roots` (JSON-serialisable parts of the model) and of the component schemas they reach, with the list of
 * every schema's name (a new or removed schema may change what a name resolves to).
 */
export function reachableDigest(model: { schemas: readonly { name: string; schema: unknown }[] }, roots: unknown): string {
  const schemas = new Map<string, unknown>(model.schemas.map((s) => [s.name, s.schema]));
  const texts = new Map<string, string>();
  const textOf = (name: string): string => {
    let text = texts.get(name);
    if (text === undefined) {
      text = JSON.stringify(schemas.get(name)) ?? 'undefined';
      texts.set(name, text);
    }
    return text;
  };
  const rootText = JSON.stringify(roots) ?? 'undefined';
  const reached = new Set<string>();
  let everything = false;
  const queue = [rootText];
  while (queue.length > 0 && !everything) {
    const text = queue.pop()!;
    let followed = 0;
    for (const match of text.matchAll(SCHEMA_REF)) {
      const name = schemaName(match[1]!, schemas);
      if (name === undefined) {
        everything = true;
        break;
      }
      followed++;
      if (!reached.has(name)) {
        reached.add(name);
        queue.push(textOf(name));
      }
    }
    if ((text.match(ANY_REF)?.length ?? 0) !== followed) everything = true;
  }
  const names = everything ? [...schemas.keys()] : [...reached].sort();
  return digestText([rootText, model.schemas.map((s) => s.name).join('\0'), ...names.map((n) => `${n}\0${textOf(n)}`)].join('\u0001'));
}
