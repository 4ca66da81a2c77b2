/**
 * Which request bodies reach a handler as an array of lines (D484, "JSON bodies by media type name, ndjson line by
 * line"): the scaffold's runtime reads an ndjson / JSON Lines body line by line, and where the declared schema is not
 * an array it describes one line, so the handler gets the array of line values. The handler type says the same
 * (`Array<line>`). The generators do not depend on @paygate/server (packages/server/src/runtime/json-media.ts and
 * ndjson-lines.ts hold the runtime's side); test/generators/ndjson-agreement.test.ts checks both read the same table.
 */
import type { MediaTypeModel, SchemaModel } from './types.js';
import type { SchemaNode } from './schema/types.js';

const NDJSON_SUBTYPES: ReadonlySet<string> = new Set(['ndjson', 'x-ndjson', 'jsonl', 'x-jsonl', 'jsonlines', 'x-jsonlines']);

/** Newline-delimited JSON by its name (ndjson, JSON Lines), parameters and case aside. */
export function isLineDelimitedJson(mediaType: string): boolean {
  const m = /^[a-z0-9!#$&^_.+-]+\/([a-z0-9!#$&^_.+-]+)$/.exec(mediaType.split(/[;,]/)[0]!.trim().toLowerCase());
  return m !== null && NDJSON_SUBTYPES.has(m[1]!);
}

/** Whether a schema node can be an array (through references, alternatives and allOf members). */
function canBeArray(node: SchemaNode | undefined, schemas: ReadonlyMap<string, SchemaNode>, seen: Set<string>): boolean {
  if (node === undefined) return false;
  switch (node.kind) {
    case 'array':
      return true;
    case 'ref':
      if (seen.has(node.name)) return false;
      seen.add(node.name);
      return canBeArray(schemas.get(node.name), schemas, seen);
    case 'union':
      return node.variants.some((v) => canBeArray(v, schemas, seen));
    case 'allOf':
      return node.members.some((m) => canBeArray(m, schemas, seen));
    default:
      return false;
  }
}

/** True when the media type's body reaches the handler as the array of its lines' values (ndjson, schema of one line). */
export function bodyIsLineArray(media: Pick<MediaTypeModel, 'mediaType' | 'node'>, schemas: readonly SchemaModel[]): boolean {
  if (!isLineDelimitedJson(media.mediaType) || media.node === undefined) return false;
  return !canBeArray(media.node, new Map(schemas.map((s) => [s.name, s.node])), new Set());
}
