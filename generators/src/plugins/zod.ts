/**
 * The first-party Zod plugin (D377): Zod schemas of every component schema and of the JSON request and response
 * bodies of every operation, in `<out>/zod/schemas.gen.ts`:
 *
 *   import { zodPlugin } from '@paygate/cli';
 *   export default defineConfig({ plugins: [zodPlugin()] });
 *
 *   import { requestBodies } from './generated/zod/schemas.gen.js';
 *   const body = requestBodies.createBook.parse(await req.json()); // typed as the contract's request body
 *
 * Validated by Zod, typed by the contract: each component schema is `z.ZodType<components['schemas'][name]>` (the
 * contract's openapi-typescript type of the same schema), so `parse` returns the type the rest of the generated code
 * uses, and recursion needs no hand-written type. The generated code imports `zod` (4.x): the project installs it.
 *
 * What is checked: types (type arrays, 3.0 `nullable`), `enum`/`const`, objects (required, optional,
 * `additionalProperties` false or a schema: extra keys are otherwise kept), arrays (`items`, `prefixItems`, min/max
 * items), strings (min/max length, `pattern` in `u` syntax, D60), numbers (integer, minimum/maximum in 3.0 and 3.1
 * spellings, multipleOf), `allOf` (intersection), `oneOf`/`anyOf` (union: oneOf's "exactly one" is not enforced).
 * Formats are annotations (JSON Schema 2020-12's default): not checked. Anything else Zod cannot say (`not`,
 * `if`/`then`, dependent keywords) accepts any value rather than refuse valid data.
 */
import type { ArrayNode, NumberNode, ObjectNode, SchemaNode, StringNode } from '../model/types.js';
import { pascalCase } from '../util/naming.js';
import { definePlugin, type PaygatePlugin } from './api.js';

export interface ZodPluginOptions {
  /** The file, relative to the output root (default `zod/schemas.gen.ts`). */
  file?: string;
}

/** A JavaScript string literal. */
const literal = (value: unknown) => JSON.stringify(value);

/**
 * A component's name as a key type of the contract's `components['schemas']`: openapi-typescript writes a canonical
 * number (`400`) as a numeric key, so `keyof` holds the number, not the string.
 */
const schemaKey = (name: string) => (/^(?:0|[1-9]\d{0,14})$/.test(name) ? name : JSON.stringify(name));

const UNKNOWN = 'z.unknown()';

/** Zod expressions of the model's typed schema nodes (D475: the plugin reads no raw JSON). */
class ZodWriter {
  /** Component schema name -> the identifier of its const. */
  readonly names = new Map<string, string>();

  constructor(componentNames: readonly string[]) {
    const used = new Set<string>();
    for (const name of componentNames) {
      let ident = `${pascalCase(name) || 'Schema'}Schema`;
      if (/^[0-9]/.test(ident)) ident = `_${ident}`;
      for (let n = 2; used.has(ident); n += 1) ident = `${pascalCase(name) || 'Schema'}Schema${n}`;
      used.add(ident);
      this.names.set(name, ident);
    }
  }

  /** The Zod expression of `node` (undefined: no schema, any value). */
  expr(node: SchemaNode | undefined): string {
    if (node === undefined) return UNKNOWN;
    const base = this.withoutNullable(node);
    return node.nullable && !base.endsWith('.nullable()') ? `${base}.nullable()` : base;
  }

  private withoutNullable(node: SchemaNode): string {
    switch (node.kind) {
      case 'unknown':
        return UNKNOWN;
      case 'never':
        return 'z.never()';
      case 'ref':
        // a component schema: its const (z.lazy, so recursion and declaration order do not matter)
        return this.names.get(node.name) ?? UNKNOWN;
      case 'const':
        return this.literalOf(node.value);
      case 'enum':
        return this.enumOf(node.values);
      case 'object':
        return this.object(node);
      case 'array':
        return this.array(node);
      case 'string':
        return this.string(node);
      case 'number':
      case 'integer':
        return this.number(node);
      case 'boolean':
        return 'z.boolean()';
      case 'null':
        return 'z.null()';
      case 'union': {
        // oneOf's "exactly one" is not enforced: a union
        const members = node.variants.map((v) => this.expr(v));
        return members.length === 1 ? members[0]! : `z.union([${members.join(', ')}])`;
      }
      case 'allOf': {
        // a part that accepts anything (a `not`, which Zod cannot say, or `{}`) adds nothing to the intersection
        const parts = node.members.map((m) => this.expr(m)).filter((part) => part !== UNKNOWN);
        return parts.length === 0 ? UNKNOWN : parts.reduce((left, right) => `z.intersection(${left}, ${right})`);
      }
      case 'not':
        // Zod cannot say "anything but": accept rather than refuse valid data
        return UNKNOWN;
      default:
        return UNKNOWN;
    }
  }

  private enumOf(values: readonly unknown[]): string {
    if (values.length === 0) return 'z.never()';
    if (values.every((v) => typeof v === 'string')) return `z.enum([${values.map(literal).join(', ')}])`;
    const members = values.map((v) => this.literalOf(v));
    return members.length === 1 ? members[0]! : `z.union([${members.join(', ')}])`;
  }

  private literalOf(value: unknown): string {
    if (value === null) return 'z.null()';
    if (typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)))
      return `z.literal(${literal(value)})`;
    // an object or array constant: Zod has no deep-equality literal
    return UNKNOWN;
  }

  private object(node: ObjectNode): string {
    const fields = node.properties.map(({ name, required, node: sub }) => {
      const value = this.expr(sub);
      return `${literal(name)}: ${required ? value : `${value}.optional()`}`;
    });
    const shape = `{ ${fields.join(', ')} }`;
    const extra = node.additionalProperties;
    if (extra?.kind === 'never') return `z.strictObject(${shape})`;
    if (extra !== undefined && this.expr(extra) !== UNKNOWN) return `z.object(${shape}).catchall(${this.expr(extra)})`;
    // extra keys are allowed (JSON Schema's default) and kept in the parsed value
    return `z.looseObject(${shape})`;
  }

  private array(node: ArrayNode): string {
    if (node.prefixItems !== undefined) {
      const items = node.prefixItems.map((s) => this.expr(s));
      const rest = node.items?.kind === 'never' ? '' : `.rest(${this.expr(node.items)})`;
      return `z.tuple([${items.join(', ')}])${rest}`;
    }
    let out = `z.array(${this.expr(node.items)})`;
    if (node.minItems !== undefined) out += `.min(${node.minItems})`;
    if (node.maxItems !== undefined) out += `.max(${node.maxItems})`;
    return out;
  }

  private string(node: StringNode): string {
    let out = 'z.string()';
    if (node.minLength !== undefined) out += `.min(${node.minLength})`;
    if (node.maxLength !== undefined) out += `.max(${node.maxLength})`;
    // patterns are `u`-valid after normalisation (D60 patterns use the u flag everywhere); one that still is not compiles to no check
    if (node.pattern !== undefined && isUnicodeRegExp(node.pattern)) out += `.regex(new RegExp(${literal(node.pattern)}, 'u'))`;
    return out;
  }

  private number(node: NumberNode): string {
    let out = node.kind === 'integer' ? 'z.number().int()' : 'z.number()';
    // bounds arrive normalised (3.0's boolean exclusive bounds are 3.1 numbers, D477)
    if (node.minimum !== undefined) out += `.gte(${node.minimum})`;
    if (node.exclusiveMinimum !== undefined) out += `.gt(${node.exclusiveMinimum})`;
    if (node.maximum !== undefined) out += `.lte(${node.maximum})`;
    if (node.exclusiveMaximum !== undefined) out += `.lt(${node.exclusiveMaximum})`;
    if (node.multipleOf !== undefined && node.multipleOf > 0) out += `.multipleOf(${node.multipleOf})`;
    return out;
  }
}

function isUnicodeRegExp(pattern: string): boolean {
  try {
    new RegExp(pattern, 'u');
    return true;
  } catch {
    return false;
  }
}

/** The JSON media type of a content list (`application/json`, `application/problem+json`, ...), if any. */
function jsonMedia<T extends { mediaType: string }>(content: readonly T[]): T | undefined {
  return content.find((c) => /^application\/(?:[\w.+-]+\+)?json\b/i.test(c.mediaType) || c.mediaType === '*/*');
}

/** The Zod plugin (D377). */
export function zodPlugin(options: ZodPluginOptions = {}): PaygatePlugin {
  const file = options.file ?? 'zod/schemas.gen.ts';
  return definePlugin({
    name: 'zod',
    emit(model, ctx) {
      const writer = new ZodWriter(model.schemas.map((s) => s.name));
      const lines: string[] = [
        `// Zod schemas of ${model.title} ${model.version}: validated by Zod, typed by the contract (parse returns its types).`,
        '',
        "import { z } from 'zod';",
        ...(model.schemas.length === 0
          ? []
          : [
              `import type { components } from '${ctx.contractImport(file)}';`,
              '',
              '/** A component schema: parse() returns the contract type of the schema of the same name. */',
              "type Component<N extends keyof components['schemas']> = z.ZodType<components['schemas'][N]>;",
            ]),
        '',
      ];
      for (const schema of model.schemas) {
        const ident = writer.names.get(schema.name)!;
        // The getter's return type is left to inference (D377, "Zod plugin"): `z.lazy`'s own constraint still checks
        // that the body is a Zod schema, and a `(): z.ZodType` annotation made tsc compare every body's inferred
        // type with Zod's whole classic interface, which was most of a strict compile of this file (docs/benchmarks.md).
        lines.push(
          `export const ${ident}: Component<${schemaKey(schema.name)}> = z.lazy(() => ${writer.expr(schema.node)}) as unknown as Component<${schemaKey(schema.name)}>;`,
        );
      }
      lines.push('', '/** The JSON request body of each operation that has one. */', 'export const requestBodies = {');
      for (const op of model.operations) {
        const media = op.requestBody === undefined ? undefined : jsonMedia(op.requestBody.content);
        if (media === undefined) continue;
        lines.push(`  ${literal(op.operationId)}: ${writer.expr(media.node)},`);
      }
      lines.push(
        '} as const;',
        '',
        '/** The JSON response bodies of each operation, by status as written in the spec. */',
        'export const responseBodies = {',
      );
      for (const op of model.operations) {
        const entries = op.responses.flatMap((response) => {
          const media = jsonMedia(response.content);
          return media === undefined ? [] : [`${literal(response.status)}: ${writer.expr(media.node)}`];
        });
        if (entries.length > 0) lines.push(`  ${literal(op.operationId)}: { ${entries.join(', ')} },`);
      }
      lines.push('} as const;');
      ctx.file(file, lines.join('\n'));
    },
  });
}
