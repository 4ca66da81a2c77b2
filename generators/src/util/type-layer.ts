/**
 * The type layer: openapi-typescript's TypeScript for an already bundled document (decision D162).
 *
 * `openapiTS(object)` first runs its own `validateAndBundle`: it serialises the object (`JSON.stringify`, for
 * locations), lints it with Redocly's `minimal` rules and bundles it again, two more full walks (reference resolution
 * and visit) of a document the pipeline has just bundled and, in strict mode, linted. Only then does it call
 * `transformSchema` with a context of its options. This module makes that last call itself, with the context
 * `openapiTS` would build from the same options: the same exported functions (`transformSchema`,
 * `scanDiscriminators`, `resolveRef`, `astToString`), the same output, byte for byte (`type-layer.test.ts` compares
 * it with `openapiTS` on documents that exercise discriminators, refs, webhooks and the options below). Except where
 * openapi-typescript's output does not compile: a child declaring its discriminator's property itself (D481 a
 * schema's own discriminator property declared once) and, applied by the caller, `nullableHelpers` (D474 WithRequired
 * of a nullable or optional member).
 */
import {
  astToString,
  resolveRef,
  scanDiscriminators,
  transformSchema,
  type GlobalContext,
  type OpenAPI3,
  type OpenAPITSOptions,
} from 'openapi-typescript';

/** openapi-typescript's options of the type layer. */
export const TYPE_LAYER_OPTIONS = {
  alphabetize: true,
  silent: true,
  // A property with a `default` stays optional: clients may omit it (the server fills the default), so a
  // request type must not demand it.
  defaultNonNullable: false,
  // `type: object` without properties is any object (JSON Schema), not `Record<string, never>`: a free-form
  // `metadata` must be writable without casts (D118 empty object schemas typed Record<string, unknown>).
  emptyObjectsUnknown: true,
} as const satisfies OpenAPITSOptions;

/**
 * `openapiTS`'s context for TYPE_LAYER_OPTIONS (every other option at openapiTS's default). `redoc` is left out: it
 * is the Redocly config of the validate-and-bundle step skipped here, and no transform reads it.
 */
export function typeLayerContext(
  schema: OpenAPI3,
  /** The scan's result when the caller knows it (a document without any `discriminator` scans to nothing, D441). */
  discriminators?: GlobalContext['discriminators'],
): Omit<GlobalContext, 'redoc'> {
  const o = TYPE_LAYER_OPTIONS;
  return {
    additionalProperties: false,
    alphabetize: o.alphabetize,
    arrayLength: false,
    defaultNonNullable: o.defaultNonNullable,
    // Mutates `schema` (adds the discriminator's enum to mapped schemas), as in openapiTS.
    discriminators: withoutOwnDiscriminatorProperties(schema, discriminators ?? scanDiscriminators(schema, o)),
    emptyObjectsUnknown: o.emptyObjectsUnknown,
    enum: false,
    enumValues: false,
    conditionalEnums: false,
    dedupeEnums: false,
    excludeDeprecated: false,
    exportType: false,
    immutable: false,
    rootTypes: false,
    rootTypesNoSchemaPrefix: false,
    rootTypesKeepCasing: false,
    injectFooter: [],
    pathParamsAsTypes: false,
    postTransform: undefined,
    propertiesRequiredByDefault: false,
    silent: o.silent,
    inject: undefined,
    transform: undefined,
    transformProperty: undefined,
    makePathsEnum: false,
    generatePathParams: false,
    readWriteMarkers: false,
    resolve<T>($ref: string): T | undefined {
      return resolveRef<T>(schema, $ref, { silent: o.silent });
    },
  };
}

/**
 * The scan without the schemas that declare the discriminator's property themselves (D481 a schema's own
 * discriminator property declared once). openapi-typescript gives a schema that `allOf`s a discriminated parent, and that the parent's mapping does not name, the property as
 * `class: "SchemaName"`, in front of the schema's own properties; when the schema declares that property too (Apple's
 * SiriKit `AddMediaMediaDestinationResolutionResult`, `class: {enum: [...]}`), the type had it twice: TS2300
 * duplicate identifier. The schema's own declaration is what the spec wrote, so it alone is kept; the parent's
 * property is still left out of the `allOf` member (`Omit<Parent, "class">`), as before.
 */
export function withoutOwnDiscriminatorProperties(
  schema: OpenAPI3,
  discriminators: GlobalContext['discriminators'],
): GlobalContext['discriminators'] {
  let objects: GlobalContext['discriminators']['objects'] | undefined;
  for (const [ref, discriminator] of Object.entries(discriminators.objects)) {
    if (discriminators.refsHandled.includes(ref)) continue;
    const node = resolveRef<Record<string, unknown>>(schema, ref, { silent: true });
    if (typeof node !== 'object' || node === null || node['discriminator'] !== undefined) continue;
    const properties = node['properties'];
    if (typeof properties !== 'object' || properties === null || !Object.hasOwn(properties, discriminator.propertyName)) continue;
    objects ??= { ...discriminators.objects };
    delete objects[ref];
  }
  return objects === undefined ? discriminators : { ...discriminators, objects };
}

/**
 * openapi-typescript's output for a bundled document (internal `$ref`s only, already checked by the pipeline's
 * bundle). Works on a clone: the transform mutates what it reads.
 */
export function typeScriptOf(document: Readonly<Record<string, unknown>>): string {
  const schema = structuredClone(document) as unknown as OpenAPI3;
  // D162: the same call openapiTS makes after its validate-and-bundle step (the only field not set is `redoc`, see above).
  return astToString(transformSchema(schema, typeLayerContext(schema) as GlobalContext));
}

/** openapi-typescript's helper for an `allOf` that lists `required` members (its footer, as astToString prints it). */
const WITH_REQUIRED = 'type WithRequired<T, K extends keyof T> = T & {\n    [P in K]-?: T[P];\n};';

/**
 * The same helper for a type that may be null or undefined (D474 WithRequired of a nullable or optional member):
 * openapi-typescript constrains `K extends keyof T`, and `keyof (X | null)` is `never`, so `allOf: [nullable X]` with
 * `required` (Plaid's `Cause` over its nullable `PlaidError`) or over an optional member's type (`X["attributes"]`,
 * Twine Health) did not compile. Each member of the union gets the required members; `null` stays (a nullable
 * schema's value), `undefined` goes (JSON has none: it is only the index of an optional member). For an object type
 * the same type as before.
 */
const WITH_REQUIRED_NULLABLE =
  'type WithRequired<T, K extends keyof NonNullable<T>> = T extends undefined ? never : T extends null ? T : T & {\n    [P in K]-?: NonNullable<T>[P];\n};';

/**
 * The type layer's text with WITH_REQUIRED replaced by WITH_REQUIRED_NULLABLE (D474 WithRequired of a nullable or
 * optional member).
 */
export function nullableHelpers(text: string): string {
  return text.replace(WITH_REQUIRED, WITH_REQUIRED_NULLABLE);
}
