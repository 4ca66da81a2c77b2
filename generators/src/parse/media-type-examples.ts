/**
 * D444 (media-type examples checked by a Paygate rule with validators kept across runs): Redocly's
 * `no-invalid-media-type-examples` compiles an Ajv validator per media-type schema on every lint, most of the lint's
 * CPU on GitHub's spec (docs/benchmarks.md#regeneration-after-a-one-line-change). This is the same check through
 * Redocly's public plugin API, built on the same validator (`@redocly/ajv`, the options, formats and `$ref` loading of
 * Redocly's `AjvValidator`), reporting the same problems in the same places; its compiled validators are kept in an
 * `ExampleValidators` cache (watch mode's `GenerateCache`) by the content of the schema and of every schema it reaches,
 * so a run after an edit compiles only the validators whose schemas changed.
 */
import Ajv2020 from '@redocly/ajv/dist/2020.js';
import AjvDraft4 from '@redocly/ajv/dist/draft4.js';
import addFormats from 'ajv-formats';
import { escapePointerFragment, isPlainObject, isRef, type Oas3Rule, type Oas3Visitor } from '@redocly/openapi-core';
import { digestText } from '../incremental/digest.js';

/** The plugin's id and its rule's name; each problem names Redocly's rule (`BUILT_IN_RULE`), as the built-in rule would. */
export const EXAMPLES_PLUGIN = 'paygate';
export const EXAMPLES_RULE = `${EXAMPLES_PLUGIN}/media-type-examples`;
export const BUILT_IN_RULE = 'no-invalid-media-type-examples';

type Dialect = 'draft4' | '2020';
type Ajv = InstanceType<typeof Ajv2020.default> | InstanceType<typeof AjvDraft4.default>;
type Validate = ReturnType<Ajv['compile']>;
type Obj = Record<string, unknown>;
type VisitorContext = Parameters<NonNullable<Extract<NonNullable<Oas3Visitor['MediaType']>, { leave?: unknown }>['leave']>>[1];
type Loc = VisitorContext['location'];

/** As Redocly's AjvValidator: keywords Ajv does not validate, left out of a schema's shape. */
const ANNOTATION_KEYWORDS = ['title', 'description', 'example', 'examples', 'default', 'deprecated'];
/** Keywords whose values are data, never schemas: a `$ref` or `id` in them is no reference (closure walk). */
const DATA_KEYWORDS = new Set(['example', 'examples', 'default', 'enum', 'const']);

/**
 * Compiled validators by key (the dialect, the additional-properties setting and the content of the schema and of
 * everything it reaches), kept from one lint to the next. A run keeps only what it used: a validator no media type
 * needs any more is dropped.
 */
export class ExampleValidators {
  private kept = new Map<string, Validate>();
  private used = new Map<string, Validate>();
  /** Validators reused and compiled in the last run. */
  lastRun = { reused: 0, compiled: 0 };

  startRun(): void {
    this.used = new Map();
    this.lastRun = { reused: 0, compiled: 0 };
  }

  endRun(): void {
    this.kept = this.used;
  }

  get(key: string): Validate | undefined {
    const hit = this.used.get(key) ?? this.kept.get(key);
    if (hit !== undefined && !this.used.has(key)) {
      this.used.set(key, hit);
      this.lastRun.reused++;
    }
    return hit;
  }

  set(key: string, validate: Validate): void {
    this.used.set(key, validate);
    this.lastRun.compiled++;
  }
}

const dialectOf = (specVersion: string): Dialect => (specVersion === 'oas2' || specVersion === 'oas3_0' ? 'draft4' : '2020');

/** As Redocly's getSchemaShape: the schema without annotations, or undefined when it holds a `$ref` anywhere. */
function schemaShape(schema: Obj, dialect: Dialect): string | undefined {
  const keywords = { ...schema };
  for (const keyword of ANNOTATION_KEYWORDS) delete keywords[keyword];
  const shape = JSON.stringify(keywords);
  return shape.includes('"$ref"') ? undefined : `${dialect}:${shape}`;
}

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

/** One run's Ajv instances and validators, as Redocly's AjvValidator (one per rule instance), in front of the kept cache. */
class RunValidators {
  private instances: Partial<Record<Dialect, Ajv>> = {};
  private shared = new Map<string, Validate>();
  /** Absolute pointer -> digest of the node there and of every node it reaches (undefined: not cacheable). */
  private closures = new Map<string, string | undefined>();

  constructor(private readonly cache: ExampleValidators) {}

  private ajv(resolve: VisitorContext['resolve'], dialect: Dialect): Ajv {
    let ajv = this.instances[dialect];
    if (ajv === undefined) {
      const schemaIdKey: 'id' | '$id' = dialect === 'draft4' ? 'id' : '$id';
      const options = {
        schemaId: schemaIdKey,
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
          const resolved = resolve({ $ref }, decodedBase);
          if (!resolved.location) return false;
          return { [schemaIdKey]: `${encodeURI(resolved.location.source.absoluteRef)}#${$id}`, ...(resolved.node as Obj) };
        },
      };
      ajv = dialect === '2020' ? new Ajv2020.default(options) : new AjvDraft4.default(options);
      // ajv-formats is typed against ajv; @redocly/ajv is its fork with the same plugin interface (Redocly registers it so)
      addFormats.default(ajv as unknown as Parameters<typeof addFormats.default>[0]);
      this.instances[dialect] = ajv;
    }
    return ajv;
  }

  /**
   * Digest of the node at `loc` and of every node its `$ref`s reach, transitively (each resolved as Redocly's walk
   * resolves it); undefined when one cannot be resolved or a base URI may move: then the validator is not kept.
   */
  private closure(node: unknown, loc: Loc, resolve: VisitorContext['resolve']): string | undefined {
    const root = loc.absolutePointer;
    if (this.closures.has(root)) return this.closures.get(root);
    const texts: string[] = [];
    const seen = new Set<string>([root]);
    const queue: { node: unknown; from: string; pointer: string }[] = [{ node, from: loc.source.absoluteRef, pointer: root }];
    let cacheable = true;
    while (queue.length > 0 && cacheable) {
      const next = queue.pop()!;
      texts.push(`${next.pointer}\u0000${JSON.stringify(next.node)}`);
      const refs = refsOf(next.node, false, []);
      if (refs === undefined) cacheable = false;
      for (const $ref of refs ?? []) {
        const resolved = resolve({ $ref }, next.from);
        if (!resolved.location) {
          cacheable = false;
          break;
        }
        const pointer = resolved.location.absolutePointer;
        if (seen.has(pointer)) continue;
        seen.add(pointer);
        queue.push({ node: resolved.node, from: resolved.location.source.absoluteRef, pointer });
      }
    }
    const digest = cacheable ? digestText(texts.sort().join('\u0001')) : undefined;
    this.closures.set(root, digest);
    return digest;
  }

  /** As Redocly's AjvValidator.getValidator, with the kept validators looked up before compiling. */
  validator(schema: unknown, loc: Loc, resolve: VisitorContext['resolve'], additional: boolean, dialect: Dialect): Validate | undefined {
    const ajv = this.ajv(resolve, dialect);
    // Every plain `$ref` to a schema shares the validator of its target.
    if (isRef(schema) && Object.keys(schema).length === 1) {
      const resolved = resolve(schema, loc.source.absoluteRef);
      if (resolved.location && isPlainObject(resolved.node)) {
        schema = resolved.node;
        loc = resolved.location;
      }
    }
    const shape = isPlainObject(schema) ? schemaShape(schema, dialect) : undefined;
    if (shape !== undefined) {
      const runHit = this.shared.get(shape);
      if (runHit !== undefined) return runHit;
      const key = `shape:${additional}:${shape}`;
      let validate = this.cache.get(key);
      if (validate === undefined) {
        ajv.setDefaultUnevaluatedProperties(additional);
        validate = ajv.compile(schema as Obj);
        this.cache.set(key, validate);
      }
      this.shared.set(shape, validate);
      return validate;
    }
    const $id = encodeURI(loc.absolutePointer);
    const closure = this.closure(schema, loc, resolve);
    const key = closure === undefined ? undefined : `ref:${dialect}:${additional}:${$id}:${closure}`;
    const kept = key === undefined ? undefined : this.cache.get(key);
    if (kept !== undefined) return kept;
    const schemaIdKey = dialect === 'draft4' ? 'id' : '$id';
    if (!ajv.getSchema($id)) {
      ajv.setDefaultUnevaluatedProperties(additional);
      ajv.addSchema({ [schemaIdKey]: $id, ...(schema as Obj) }, $id);
    }
    const validate = ajv.getSchema($id);
    if (validate !== undefined && key !== undefined) this.cache.set(key, validate);
    return validate;
  }
}

interface AjvError {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

/** As Redocly's beatifyErrorMessage: the problem message and suggestions of one Ajv error. */
function describeError(error: AjvError, instancePath: string): { message: string; suggest?: string[]; instancePath: string } {
  let message = error.message ?? '';
  const suggest = error.keyword === 'enum' ? (error.params.allowedValues as string[]) : undefined;
  if (suggest) message += ` ${suggest.map((e) => `"${e}"`).join(', ')}`;
  if (error.keyword === 'type') message = `type ${message}`;
  const relativePath = error.instancePath.substring(instancePath.length + 1);
  const propName = relativePath.substring(relativePath.lastIndexOf('/') + 1);
  if (propName) message = `\`${propName}\` property ${message}`;
  let path = error.instancePath;
  if (error.keyword === 'additionalProperties' || error.keyword === 'unevaluatedProperties') {
    const property = (error.params.additionalProperty ?? error.params.unevaluatedProperty) as string;
    message = `${message} \`${property}\``;
    path += `/${escapePointerFragment(property)}`;
  }
  return { message, ...(suggest === undefined ? {} : { suggest }), instancePath: path };
}

const REFERENCE = 'https://redocly.com/docs/cli/rules/oas/no-invalid-media-type-examples';

/** As Redocly's getExampleValueToValidate: the value of an Example Object (`dataValue`, else `value`). */
function exampleValue(example: unknown): { value: unknown; field: string } | undefined {
  if (!isPlainObject(example)) return undefined;
  if (example.dataValue !== undefined) return { value: example.dataValue, field: 'dataValue' };
  if (example.value !== undefined) return { value: example.value, field: 'value' };
  return undefined;
}

/**
 * The rule (Redocly's `Oas3Rule` shape): the visitors of Redocly's `no-invalid-media-type-examples`, with one
 * `RunValidators` per lint in front of `cache`.
 */
export function mediaTypeExamplesRule(cache: ExampleValidators): Oas3Rule {
  return (opts) => {
    const run = new RunValidators(cache);
    const additional = Boolean(opts.allowAdditionalProperties);
    const skip = (mediaType: { schema?: unknown }) => mediaType.schema === undefined;
    const leave =
      (ajvContext: { apiContext: 'request' | 'response' }) =>
      (mediaType: { schema?: unknown; example?: unknown; examples?: unknown }, ctx: VisitorContext) => {
        const check = (example: unknown, location: Loc, multiple: boolean): void => {
          if (isRef(example)) {
            const resolved = ctx.resolve(example);
            if (!resolved.location) return;
            location = resolved.location;
            example = resolved.node;
          }
          let value = example;
          if (multiple) {
            const selected = exampleValue(example);
            if (!selected) return;
            value = selected.value;
            location = location.child(selected.field);
          }
          validateExample(run, value, mediaType.schema, location, ctx, additional, ajvContext);
        };
        if (mediaType.example !== undefined) check(mediaType.example, ctx.location.child('example'), false);
        else if (isPlainObject(mediaType.examples)) {
          for (const name of Object.keys(mediaType.examples)) check(mediaType.examples[name], ctx.location.child(['examples', name]), true);
        }
      };
    const visitor = (apiContext: 'request' | 'response') => ({ MediaType: { skip, leave: leave({ apiContext }) } });
    return { Parameter: visitor('request'), RequestBody: visitor('request'), Response: visitor('response') } as Oas3Visitor;
  };
}

/** As Redocly's validateExample: one problem per Ajv error, or one for a validator that cannot be compiled. */
function validateExample(
  run: RunValidators,
  example: unknown,
  schema: unknown,
  location: Loc,
  ctx: VisitorContext,
  additional: boolean,
  ajvContext: { apiContext: 'request' | 'response' },
): void {
  const parentLocation = ctx.location;
  try {
    const validate = run.validator(schema, parentLocation.child('schema'), ctx.resolve, additional, dialectOf(ctx.specVersion));
    if (!validate) return; // unresolved refs are reported
    const instancePath = location.pointer;
    const dataCxt = { instancePath, parentData: { fake: {} }, parentDataProperty: 'fake', rootData: {}, dynamicAnchors: {} };
    const valid = (validate as unknown as (this: unknown, data: unknown, cxt: unknown) => boolean).call(ajvContext, example, dataCxt);
    if (valid) return;
    for (const error of (validate.errors ?? []) as AjvError[]) {
      const described = describeError(error, instancePath);
      ctx.report({
        ruleId: BUILT_IN_RULE,
        message: `Example value must conform to the schema: ${described.message}.`,
        location: {
          source: location.source,
          pointer: described.instancePath,
          reportOnKey: error.keyword === 'unevaluatedProperties' || error.keyword === 'additionalProperties',
        },
        from: parentLocation,
        ...(described.suggest === undefined ? {} : { suggest: described.suggest }),
        reference: REFERENCE,
      });
    }
  } catch (e) {
    if ((e as Error).message === 'discriminator: requires oneOf or anyOf composite keyword') return;
    ctx.report({
      ruleId: BUILT_IN_RULE,
      message: `Example validation errored: ${(e as Error).message}.`,
      location: parentLocation.child('schema'),
      from: parentLocation,
      reference: REFERENCE,
    });
  }
}
