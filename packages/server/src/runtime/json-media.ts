/**
 * Which declared request media types are JSON by their name (D484, "JSON bodies by media type name, ndjson line by
 * line"): `application/json`, any `+json` suffix (RFC 6839), and `json` or `x-json` under any type (Rumble's
 * `text/json`, `application/x-json`). Names that only contain `json` are not: `application/x-json-smile` is binary,
 * `application/x-jsonnet` a language, and the newline-delimited kinds are sequences of JSON texts, read line by line
 * (ndjson-body.ts).
 */

/** A media type's essence: type and subtype, lower-cased, without parameters. */
function essenceOf(mediaType: string): { type: string; subtype: string } | undefined {
  const m = /^([a-z0-9!#$&^_.+-]+)\/([a-z0-9!#$&^_.+-]+)$/.exec(mediaType.split(/[;,]/)[0]!.trim().toLowerCase());
  return m === null ? undefined : { type: m[1]!, subtype: m[2]! };
}

/** Whether a media type's body is one JSON text by its name. */
export function isJsonMediaType(mediaType: string): boolean {
  const subtype = essenceOf(mediaType)?.subtype;
  return subtype !== undefined && (subtype === 'json' || subtype === 'x-json' || subtype.endsWith('+json'));
}

const NDJSON_SUBTYPES: ReadonlySet<string> = new Set(['ndjson', 'x-ndjson', 'jsonl', 'x-jsonl', 'jsonlines', 'x-jsonlines']);

/** Whether a media type's body is newline-delimited JSON (ndjson, JSON Lines): one JSON text per line. */
export function isNdjsonMediaType(mediaType: string): boolean {
  const subtype = essenceOf(mediaType)?.subtype;
  return subtype !== undefined && NDJSON_SUBTYPES.has(subtype);
}

/** What the JSON parser always reads: `application/json` and the `+json` suffix under `application/`. */
const ALWAYS_JSON = ['application/json', 'application/*+json'];

/**
 * The media types the JSON body parser reads for a spec: `application/json`, `application/*+json`, and the essences of
 * the declared request media types that are JSON by name (`text/json` only where a spec declares it, so that another
 * spec's `text/*` operation still gets its text).
 */
export function jsonBodyTypes(declared: readonly string[]): string[] {
  const out = [...ALWAYS_JSON];
  for (const mediaType of declared) {
    const essence = essenceOf(mediaType);
    if (essence === undefined || !isJsonMediaType(mediaType)) continue;
    const name = `${essence.type}/${essence.subtype}`;
    if (!out.includes(name) && !(essence.type === 'application' && essence.subtype.endsWith('+json'))) out.push(name);
  }
  return out;
}

/** The essences of the declared request media types that are newline-delimited JSON, for the ndjson parser. */
export function ndjsonBodyTypes(declared: readonly string[]): string[] {
  const out: string[] = [];
  for (const mediaType of declared) {
    const essence = essenceOf(mediaType);
    if (essence === undefined || !isNdjsonMediaType(mediaType)) continue;
    const name = `${essence.type}/${essence.subtype}`;
    if (!out.includes(name)) out.push(name);
  }
  return out;
}
