/**
 * The type layer: openapi-typescript's TypeScript for an already bundled document (decision D162).
 *
 * `openapiTS(object)` first runs its own `validateAndBundle`: it serialises the object (`JSON.stringify`, for
 * locations), lints it with Redocly's `minimal` rules and bundles it again, two more full walks (reference resolution
 * and visit) of a document the pipeline has just bundled and, in strict mode, linted. Only then does it call
 * `transformSchema` with a context of its options. This module makes that last call itself, with the context
 * `openapiTS` would build from the same options: the same exported functions (`transformSchema`,
 * `scanDiscriminators`, `resolveRef`, `astToString`), the same output, byte for byte (`type-layer.test.ts` compares
 * it with `openapiTS` on documents that exercise discriminators, refs, webhooks and the options below).
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
    discriminators: discriminators ?? scanDiscriminators(schema, o),
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
 * openapi-typescript's output for a bundled document (internal `$ref`s only, already checked by the pipeline's
 * bundle). Works on a clone: the transform mutates what it reads.
 */
export function typeScriptOf(document: Readonly<Record<string, unknown>>): string {
  const schema = structuredClone(document) as unknown as OpenAPI3;
  // D162: the same call openapiTS makes after its validate-and-bundle step (the only field not set is `redoc`, see above).
  return astToString(transformSchema(schema, typeLayerContext(schema) as GlobalContext));
}
