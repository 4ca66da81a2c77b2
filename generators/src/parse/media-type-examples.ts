/**
 * D444 (media-type examples checked by a Paygate rule with validators kept across runs): Redocly's
 * `no-invalid-media-type-examples` compiles an Ajv validator per media-type schema on every lint, most of the lint's
 * CPU on GitHub's spec (docs/benchmarks.md#regeneration-after-a-one-line-change). This is the same check through
 * Redocly's public plugin API, built on the same validator (`example-ajv.ts`: `@redocly/ajv`, the options, formats and
 * `$ref` loading of Redocly's `AjvValidator`), reporting the same problems in the same places; its compiled validators
 * are kept in an `ExampleValidators` (watch mode's `GenerateCache`) by the content of the schema and of every schema it
 * reaches (D446 for those with `$ref`s), so a run after an edit compiles only the validators whose schemas changed.
 */
import { escapePointerFragment, isPlainObject, isRef, type Oas3Rule, type Oas3Visitor } from '@redocly/openapi-core';
import { type Ajv, createExampleAjv, type Dialect, type Loc, SchemaClosures, type Validate, type VisitorContext } from './example-ajv.js';
import { KeptRefValidators } from './kept-ref-validators.js';

/** The plugin's id and its rule's name; each problem names Redocly's rule (`BUILT_IN_RULE`), as the built-in rule would. */
export const EXAMPLES_PLUGIN = 'paygate';
export const EXAMPLES_RULE = `${EXAMPLES_PLUGIN}/media-type-examples`;
export const BUILT_IN_RULE = 'no-invalid-media-type-examples';

type Obj = Record<string, unknown>;

/** As Redocly's AjvValidator: keywords Ajv does not validate, left out of a schema's shape. */
const ANNOTATION_KEYWORDS = ['title', 'description', 'example', 'examples', 'default', 'deprecated'];

/**
 * The compiled validators kept from one lint to the next: a schema without `$ref` by its shape (the dialect, the
 * additional-properties setting and its keywords), a schema with `$ref`s in a kept Ajv instance per dialect and
 * setting (D446 one Ajv kept across lints for the example schemas that use `$ref`). A lint keeps only the shapes it used.
 */
export class ExampleValidators {
  private kept = new Map<string, Validate>();
  private used = new Map<string, Validate>();
  private refInstances = new Map<string, KeptRefValidators>();
  private active = new Set<KeptRefValidators>();
  private shapes = { reused: 0, compiled: 0 };

  /** Validators reused from an earlier lint and compiled in the last one (each media-type schema or shape once). */
  get lastRun(): { reused: number; compiled: number } {
    let { reused, compiled } = this.shapes;
    for (const refs of this.active) {
      reused += refs.stats.reused;
      compiled += refs.stats.compiled;
    }
    return { reused, compiled };
  }

  startRun(): void {
    this.used = new Map();
    this.active.clear();
    this.shapes = { reused: 0, compiled: 0 };
  }

  endRun(): void {
    this.kept = this.used;
    for (const refs of this.active) refs.end();
  }

  get(key: string): Validate | undefined {
    const hit = this.used.get(key) ?? this.kept.get(key);
    if (hit !== undefined && !this.used.has(key)) {
      this.used.set(key, hit);
      this.shapes.reused++;
    }
    return hit;
  }

  set(key: string, validate: Validate): void {
    this.used.set(key, validate);
    this.shapes.compiled++;
  }

  /** The kept instance for schemas with `$ref`s, begun for this lint on its first use. */
  refs(dialect: Dialect, additional: boolean, resolve: VisitorContext['resolve'], closures: SchemaClosures): KeptRefValidators {
    const key = `${dialect}:${additional}`;
    let refs = this.refInstances.get(key);
    if (refs === undefined) {
      refs = new KeptRefValidators(dialect, additional);
      this.refInstances.set(key, refs);
    }
    if (!this.active.has(refs)) {
      this.active.add(refs);
      refs.begin(resolve, closures);
    }
    return refs;
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

/** One lint's validators, as Redocly's AjvValidator (one per rule instance), in front of the kept ones. */
class RunValidators {
  private instances: Partial<Record<Dialect, Ajv>> = {};
  private shared = new Map<string, Validate>();
  private closures: SchemaClosures | undefined;

  constructor(private readonly cache: ExampleValidators) {}

  /** As Redocly's AjvValidator.getValidator, with the kept validators looked up before compiling. */
  validator(schema: unknown, loc: Loc, resolve: VisitorContext['resolve'], additional: boolean, dialect: Dialect): Validate | undefined {
    // Every plain `$ref` to a schema shares the validator of its target.
    if (isRef(schema) && Object.keys(schema).length === 1) {
      const resolved = resolve(schema, loc.source.absoluteRef);
      if (resolved.location && isPlainObject(resolved.node)) {
        schema = resolved.node;
        loc = resolved.location;
      }
    }
    const shape = isPlainObject(schema) ? schemaShape(schema, dialect) : undefined;
    if (shape === undefined) {
      this.closures ??= new SchemaClosures(resolve);
      return this.cache.refs(dialect, additional, resolve, this.closures).validator(schema as Obj, loc);
    }
    const runHit = this.shared.get(shape);
    if (runHit !== undefined) return runHit;
    const key = `${additional}:${shape}`;
    let validate = this.cache.get(key);
    if (validate === undefined) {
      // a schema without `$ref` loads nothing: a new instance per lint, as Redocly's
      const ajv = (this.instances[dialect] ??= createExampleAjv(dialect, () => resolve));
      ajv.setDefaultUnevaluatedProperties(additional);
      validate = ajv.compile(schema as Obj);
      this.cache.set(key, validate);
    }
    this.shared.set(shape, validate);
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
