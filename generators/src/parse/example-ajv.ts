/**
 * The Ajv instance of the media-type examples check (D444 media-type examples checked by a Paygate rule with validators kept across runs): Redocly's `AjvValidator.getAjv` options, formats and
 * `$ref` loading through the lint walk's `resolve`, on `@redocly/ajv` (the version Redocly uses), and the digest of
 * the schemas a validator reads (`SchemaClosures`), which decides whether a compiled validator may be reused.
 */
import Ajv2020 from '@redocly/ajv/dist/2020.js';
import AjvDraft4 from '@redocly/ajv/dist/draft4.js';
import addFormats from 'ajv-formats';
import { isPlainObject, type Oas3Visitor } from '@redocly/openapi-core';
import { digestText } from '../incremental/digest.js';

export type Dialect = 'draft4' | '2020';
export type Ajv = InstanceType<typeof Ajv2020.default> | InstanceType<typeof AjvDraft4.default>;
export type Validate = ReturnType<Ajv['compile']>;
export type VisitorContext = Parameters<NonNullable<Extract<NonNullable<Oas3Visitor['MediaType']>, { leave?: unknown }>['leave']>>[1];
export type Resolve = VisitorContext['resolve'];
export type Loc = VisitorContext['location'];
type Obj = Record<string, unknown>;

export const schemaIdKey = (dialect: Dialect): 'id' | '$id' => (dialect === 'draft4' ? 'id' : '$id');

/**
 * A new Ajv as Redocly's `getAjv` makes it; `resolve()` gives the walk's resolver of the lint under way (an instance
 * kept across lints loads through the current one), `loaded` hears of every schema loaded by `$ref`.
 */
export function createExampleAjv(
  dialect: Dialect,
  resolve: () => Resolve,
  loaded?: (key: string, $ref: string, base: string, target: { node: unknown; location: Loc }) => void,
): Ajv {
  const idKey = schemaIdKey(dialect);
  const options = {
    schemaId: idKey,
    meta: true,
    allErrors: true,
    strictSchema: false,
    inlineRefs: false,
    validateSchema: false,
    discriminator: true,
    allowUnionTypes: true,
    validateFormats: true,
    passContext: true,
    logger: false as const,
    // D445 (example validators compiled without Ajv's optimisation pass): Redocly's options but this one; the pass
    // rewrites the generated code, never what it accepts or the errors it gives, and costs more than it saves for a
    // validator run on a few examples
    code: { optimize: false },
    loadSchemaSync(base: string, $ref: string, $id: string) {
      const decodedBase = decodeURI(base.split('#')[0]!);
      const resolved = resolve()({ $ref }, decodedBase);
      if (!resolved.location) return false;
      loaded?.($id, $ref, decodedBase, { node: resolved.node, location: resolved.location });
      return { [idKey]: `${encodeURI(resolved.location.source.absoluteRef)}#${$id}`, ...(resolved.node as Obj) };
    },
  };
  const ajv = dialect === '2020' ? new Ajv2020.default(options) : new AjvDraft4.default(options);
  // ajv-formats is typed against ajv; @redocly/ajv is its fork with the same plugin interface (Redocly registers it so)
  addFormats.default(ajv as unknown as Parameters<typeof addFormats.default>[0]);
  return ajv;
}

/** Keywords whose values are data, never schemas: a `$ref` or `id` in them is no reference. */
const DATA_KEYWORDS = new Set(['example', 'examples', 'default', 'enum', 'const']);
/** Keywords whose values map names to schemas: every entry is walked, whatever its name. */
const NAME_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);

/**
 * What one schema node refers to (its `$ref` strings), or undefined when something in it may move a base URI (`$id`,
 * draft 4's `id`) or refer by another keyword (`$dynamicRef`, `$recursiveRef`): then its validator is never kept.
 */
function refsOf(node: unknown, inNameMap: boolean, out: string[]): string[] | undefined {
  if (Array.isArray(node)) {
    for (const item of node) if (refsOf(item, false, out) === undefined) return undefined;
    return out;
  }
  if (!isPlainObject(node)) return out;
  for (const [key, value] of Object.entries(node)) {
    if (inNameMap) {
      if (refsOf(value, false, out) === undefined) return undefined;
    } else if (key === '$ref' && typeof value === 'string') out.push(value);
    else if (key === '$id' || key === '$dynamicRef' || key === '$recursiveRef' || (key === 'id' && typeof value === 'string'))
      return undefined;
    else if (!DATA_KEYWORDS.has(key) && refsOf(value, NAME_MAPS.has(key), out) === undefined) return undefined;
  }
  return out;
}

interface NodeInfo {
  digest: string;
  targets: { pointer: string; node: unknown; from: string }[];
}

/**
 * Digests of schema closures for one lint: a node (by its absolute pointer) with every node its `$ref`s reach,
 * transitively, each resolved as the walk resolves it; undefined when one cannot be resolved or a base URI may move.
 * Each node is read once per lint, whatever the number of closures it is in.
 */
export class SchemaClosures {
  private nodes = new Map<string, NodeInfo | undefined>();
  private closures = new Map<string, string | undefined>();

  constructor(private readonly resolve: Resolve) {}

  private info(pointer: string, node: unknown, from: string): NodeInfo | undefined {
    if (this.nodes.has(pointer)) return this.nodes.get(pointer);
    let info: NodeInfo | undefined;
    const refs = refsOf(node, false, []);
    if (refs !== undefined) {
      info = { digest: digestText(JSON.stringify(node) ?? 'undefined'), targets: [] };
      for (const $ref of refs) {
        const resolved = this.resolve({ $ref }, from);
        if (!resolved.location) {
          info = undefined;
          break;
        }
        info.targets.push({ pointer: resolved.location.absolutePointer, node: resolved.node, from: resolved.location.source.absoluteRef });
      }
    }
    this.nodes.set(pointer, info);
    return info;
  }

  digest(node: unknown, loc: Loc): string | undefined {
    const root = loc.absolutePointer;
    if (this.closures.has(root)) return this.closures.get(root);
    const parts: string[] = [];
    const seen = new Set<string>([root]);
    const queue = [{ pointer: root, node, from: loc.source.absoluteRef }];
    let digest: string | undefined;
    for (;;) {
      const next = queue.pop();
      if (next === undefined) {
        digest = digestText(parts.sort().join('\u0001'));
        break;
      }
      const info = this.info(next.pointer, next.node, next.from);
      if (info === undefined) break;
      parts.push(`${next.pointer}\u0000${info.digest}`);
      for (const target of info.targets) {
        if (seen.has(target.pointer)) continue;
        seen.add(target.pointer);
        queue.push(target);
      }
    }
    this.closures.set(root, digest);
    return digest;
  }
}
