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
import { fromPointer, isObj, type Obj } from '../diff/document.js';
import type { JsonSchema } from '../model/types.js';
import { pascalCase } from '../util/naming.js';
import { definePlugin, type PaygatePlugin } from './api.js';

export interface ZodPluginOptions {
  /** The file, relative to the output root (default `zod/schemas.gen.ts`). */
  file?: string;
}

type Schema = Obj;

const COMPONENT_REF = /^#\/components\/schemas\/([^/]+)$/;

/** The node an internal `$ref` points to (the bundle keeps only internal ones), or undefined. */
function resolvePointer(document: Readonly<Record<string, unknown>>, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node: unknown = document;
  for (const token of fromPointer(ref)) {
    if (!isObj(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[token];
  }
  return node;
}

/** A JavaScript string literal. */
const literal = (value: unknown) => JSON.stringify(value);

/**
 * A component's name as a key type of the contract's `components['schemas']`: openapi-typescript writes a canonical
 * number (`400`) as a numeric key, so `keyof` holds the number, not the string.
 */
const schemaKey = (name: string) => (/^(?:0|[1-9]\d{0,14})$/.test(name) ? name : JSON.stringify(name));

class ZodWriter {
  /** Component schema name -> the identifier of its const. */
  readonly names = new Map<string, string>();

  constructor(
    private readonly document: Readonly<Record<string, unknown>>,
    componentNames: readonly string[],
  ) {
    const used = new Set<string>();
    for (const name of componentNames) {
      let ident = `${pascalCase(name) || 'Schema'}Schema`;
      if (/^[0-9]/.test(ident)) ident = `_${ident}`;
      for (let n = 2; used.has(ident); n += 1) ident = `${pascalCase(name) || 'Schema'}Schema${n}`;
      used.add(ident);
      this.names.set(name, ident);
    }
  }

  /** The Zod expression of `schema`; `seen` guards inline `$ref` cycles outside the components. */
  expr(schema: JsonSchema | undefined, seen: ReadonlySet<string> = new Set()): string {
    if (schema === undefined || schema === true) return 'z.unknown()';
    if (schema === false) return 'z.never()';
    if (!isObj(schema)) return 'z.unknown()';
    const ref = schema.$ref;
    if (typeof ref === 'string') {
      const component = COMPONENT_REF.exec(ref);
      const name = component === null ? undefined : fromPointer(ref)[2];
      if (name !== undefined && this.names.has(name)) return this.names.get(name)!;
      if (seen.has(ref)) return 'z.unknown()';
      const target = resolvePointer(this.document, ref);
      return target === undefined ? 'z.unknown()' : this.expr(target as JsonSchema, new Set([...seen, ref]));
    }
    const nullable = schema.nullable === true;
    const base = this.withoutNullable(schema, seen);
    return nullable && !base.endsWith('.nullable()') ? `${base}.nullable()` : base;
  }

  private withoutNullable(schema: Schema, seen: ReadonlySet<string>): string {
    if (Array.isArray(schema.type)) {
      const types = schema.type.filter((t): t is string => typeof t === 'string');
      if (types.length === 0) return 'z.unknown()';
      const members = types.map((type) => this.withoutNullable({ ...schema, type }, seen));
      return members.length === 1 ? members[0]! : `z.union([${members.join(', ')}])`;
    }
    const parts: string[] = [];
    const own = this.ownType(schema, seen);
    if (own !== undefined) parts.push(own);
    if (Array.isArray(schema.allOf)) parts.push(...schema.allOf.map((s) => this.expr(s as JsonSchema, seen)));
    for (const key of ['oneOf', 'anyOf'] as const) {
      const list = schema[key];
      if (!Array.isArray(list) || list.length === 0) continue;
      const members = list.map((s) => this.expr(s as JsonSchema, seen));
      parts.push(members.length === 1 ? members[0]! : `z.union([${members.join(', ')}])`);
    }
    if (parts.length === 0) return 'z.unknown()';
    return parts.reduce((left, right) => `z.intersection(${left}, ${right})`);
  }

  /** The schema's own keywords (type, enum, const, properties, items, constraints), or undefined when it has none. */
  private ownType(schema: Schema, seen: ReadonlySet<string>): string | undefined {
    if ('const' in schema) return this.literalOf(schema.const);
    if (Array.isArray(schema.enum)) {
      const values = schema.enum;
      if (values.length === 0) return 'z.never()';
      if (values.every((v) => typeof v === 'string')) return `z.enum([${values.map(literal).join(', ')}])`;
      const members = values.map((v) => this.literalOf(v));
      return members.length === 1 ? members[0] : `z.union([${members.join(', ')}])`;
    }
    const type =
      typeof schema.type === 'string'
        ? schema.type
        : 'properties' in schema || 'additionalProperties' in schema || 'required' in schema
          ? 'object'
          : 'items' in schema || 'prefixItems' in schema
            ? 'array'
            : undefined;
    switch (type) {
      case 'object':
        return this.object(schema, seen);
      case 'array':
        return this.array(schema, seen);
      case 'string':
        return this.string(schema);
      case 'integer':
      case 'number':
        return this.number(schema, type === 'integer');
      case 'boolean':
        return 'z.boolean()';
      case 'null':
        return 'z.null()';
      default:
        return undefined;
    }
  }

  private literalOf(value: unknown): string {
    if (value === null) return 'z.null()';
    if (typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value)))
      return `z.literal(${literal(value)})`;
    // an object or array constant: Zod has no deep-equality literal
    return 'z.unknown()';
  }

  private object(schema: Schema, seen: ReadonlySet<string>): string {
    const properties = isObj(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : []);
    const fields = Object.entries(properties).map(([name, sub]) => {
      const value = this.expr(sub as JsonSchema, seen);
      return `${literal(name)}: ${required.has(name) ? value : `${value}.optional()`}`;
    });
    const shape = `{ ${fields.join(', ')} }`;
    const extra = schema.additionalProperties;
    if (extra === false) return `z.strictObject(${shape})`;
    if (isObj(extra) && Object.keys(extra).length > 0) return `z.object(${shape}).catchall(${this.expr(extra as JsonSchema, seen)})`;
    // extra keys are allowed (JSON Schema's default) and kept in the parsed value
    return `z.looseObject(${shape})`;
  }

  private array(schema: Schema, seen: ReadonlySet<string>): string {
    let out: string;
    if (Array.isArray(schema.prefixItems)) {
      const items = schema.prefixItems.map((s) => this.expr(s as JsonSchema, seen));
      const rest = schema.items === false ? '' : `.rest(${this.expr((schema.items ?? true) as JsonSchema, seen)})`;
      return `z.tuple([${items.join(', ')}])${rest}`;
    }
    out = `z.array(${this.expr(schema.items as JsonSchema | undefined, seen)})`;
    if (typeof schema.minItems === 'number') out += `.min(${schema.minItems})`;
    if (typeof schema.maxItems === 'number') out += `.max(${schema.maxItems})`;
    return out;
  }

  private string(schema: Schema): string {
    let out = 'z.string()';
    if (typeof schema.minLength === 'number') out += `.min(${schema.minLength})`;
    if (typeof schema.maxLength === 'number') out += `.max(${schema.maxLength})`;
    // patterns are `u`-valid after normalisation (D60); one that still is not compiles to no check
    if (typeof schema.pattern === 'string' && isUnicodeRegExp(schema.pattern)) out += `.regex(new RegExp(${literal(schema.pattern)}, 'u'))`;
    return out;
  }

  private number(schema: Schema, integer: boolean): string {
    let out = integer ? 'z.number().int()' : 'z.number()';
    const bound = (value: unknown) => typeof value === 'number' && Number.isFinite(value);
    // 3.0: exclusiveMinimum is a boolean beside minimum; 3.1: a number of its own
    if (bound(schema.minimum)) out += schema.exclusiveMinimum === true ? `.gt(${schema.minimum})` : `.gte(${schema.minimum})`;
    if (bound(schema.maximum)) out += schema.exclusiveMaximum === true ? `.lt(${schema.maximum})` : `.lte(${schema.maximum})`;
    if (bound(schema.exclusiveMinimum)) out += `.gt(${schema.exclusiveMinimum})`;
    if (bound(schema.exclusiveMaximum)) out += `.lt(${schema.exclusiveMaximum})`;
    if (bound(schema.multipleOf) && (schema.multipleOf as number) > 0) out += `.multipleOf(${schema.multipleOf})`;
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
      const writer = new ZodWriter(
        ctx.document,
        model.schemas.map((s) => s.name),
      );
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
        lines.push(
          `export const ${ident}: Component<${schemaKey(schema.name)}> = z.lazy((): z.ZodType => ${writer.expr(schema.schema)}) as unknown as Component<${schemaKey(schema.name)}>;`,
        );
      }
      lines.push('', '/** The JSON request body of each operation that has one. */', 'export const requestBodies = {');
      for (const op of model.operations) {
        const media = op.requestBody === undefined ? undefined : jsonMedia(op.requestBody.content);
        if (media === undefined) continue;
        lines.push(`  ${literal(op.operationId)}: ${writer.expr(media.schema)},`);
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
          return media === undefined ? [] : [`${literal(response.status)}: ${writer.expr(media.schema)}`];
        });
        if (entries.length > 0) lines.push(`  ${literal(op.operationId)}: { ${entries.join(', ')} },`);
      }
      lines.push('} as const;');
      ctx.file(file, lines.join('\n'));
    },
  });
}
