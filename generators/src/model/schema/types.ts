/**
 * The typed schema model (issue 31, D475): every JSON Schema construct Paygate supports as a node of one discriminated
 * union, built once from the bundled document (./build.ts) and read by emitters and plugins instead of raw JSON.
 *
 * - Every node carries its source `pointer` (a JSON pointer, as a URI fragment, into the bundled document: where the
 *   schema was written), whether it also admits `null`, its annotations and its `x-` extensions.
 * - A `$ref` to a component schema is a {@link RefNode} naming it (`components.schemas` name): named schemas are built
 *   once (`ApiModel.schemas[].node`) and may be recursive. A `$ref` anywhere else is inlined (D476 a ref to a named schema is a ref node, other refs copied in place).
 * - Nullability has one representation, `nullable` (D477 one representation of nullability, number bounds and type lists): OpenAPI 3.0's `nullable: true` and 3.1's `type: [T, 'null']`
 *   both give the node of T with `nullable: true`; `type: 'null'` alone is a {@link NullNode}.
 * - A schema mixing its own type with combinators (`type: object` beside `allOf`/`oneOf`/`anyOf`/`not`) is an
 *   {@link AllOfNode} of its parts: its own keywords first, then each `allOf` member, the `oneOf` union, the `anyOf`
 *   union and the `not` (D478 a schema's own keywords beside combinators become an allOf of its parts).
 *
 * Semver: these types are public (`import type { SchemaNode } from '@paygate/cli'`); new kinds and new optional members
 * arrive in minor versions, so a plugin's `switch (node.kind)` keeps a `default` branch.
 */

/** A JSON value as written in the document (enum values, const, default, examples). */
export type JsonValue = unknown;

/** Documentation keywords: they describe a value, they never restrict it. */
export interface SchemaAnnotations {
  title?: string;
  description?: string;
  /** Present when the schema declares `default` (a declared `null` is the value null). */
  default?: JsonValue;
  /** 3.1's `examples` array, or 3.0's single `example` as a one-element list. */
  examples?: JsonValue[];
  deprecated?: boolean;
  readOnly?: boolean;
  writeOnly?: boolean;
}

interface NodeBase {
  /** Where the schema is written in the bundled document (`#/components/schemas/Pet/properties/tag`). */
  pointer: string;
  /** The value may also be `null` (3.0 `nullable: true`, or `'null'` in a 3.1 type array). */
  nullable: boolean;
  annotations: SchemaAnnotations;
  /** The schema's `x-` keywords, by name, sorted. */
  extensions: Record<string, unknown>;
}

/** `true`, `{}`, or a schema that restricts nothing Paygate models (only annotations, `if`/`then`, ...): any value. */
export interface UnknownNode extends NodeBase {
  kind: 'unknown';
}

/** `false`: no value is valid. */
export interface NeverNode extends NodeBase {
  kind: 'never';
}

export interface ObjectProperty {
  name: string;
  /** Listed in the object's `required`. */
  required: boolean;
  node: SchemaNode;
}

/** `type: object`, or a schema with `properties`, `additionalProperties` or `required` and no `type`. */
export interface ObjectNode extends NodeBase {
  kind: 'object';
  /** In declaration order. */
  properties: ObjectProperty[];
  /** Every name of `required` as written, including names the object does not declare as properties (an `allOf` part). */
  required: string[];
  /** undefined: not written (any extra property is allowed); a {@link NeverNode} for `false`, an {@link UnknownNode} for `true`. */
  additionalProperties: SchemaNode | undefined;
  /** In declaration order. */
  patternProperties: { pattern: string; node: SchemaNode }[];
  propertyNames: SchemaNode | undefined;
  minProperties: number | undefined;
  maxProperties: number | undefined;
  /** An object that is the base of a polymorphic family (`discriminator` without `oneOf`/`anyOf`, the `allOf` style). */
  discriminator: Discriminator | undefined;
}

/** `type: array`, or a schema with `items` or `prefixItems` and no `type`. */
export interface ArrayNode extends NodeBase {
  kind: 'array';
  /** The schema of every item (after `prefixItems`, when there are some); undefined: not written. A draft-04 `items` list is `prefixItems`. */
  items: SchemaNode | undefined;
  prefixItems: SchemaNode[] | undefined;
  minItems: number | undefined;
  maxItems: number | undefined;
  uniqueItems: boolean;
  contains: SchemaNode | undefined;
}

export interface StringNode extends NodeBase {
  kind: 'string';
  format: string | undefined;
  minLength: number | undefined;
  maxLength: number | undefined;
  /** As written (ECMA-262 after the parser's normalisation, D60). */
  pattern: string | undefined;
  contentMediaType: string | undefined;
  contentEncoding: string | undefined;
}

/**
 * `type: number` or `type: integer`. Bounds are normalised (D477 one representation of nullability, number bounds and type lists): 3.0's `exclusiveMinimum: true` beside `minimum: 5`
 * is `exclusiveMinimum: 5` (and no `minimum`), as 3.1 writes it.
 */
export interface NumberNode extends NodeBase {
  kind: 'number' | 'integer';
  format: string | undefined;
  minimum: number | undefined;
  maximum: number | undefined;
  exclusiveMinimum: number | undefined;
  exclusiveMaximum: number | undefined;
  multipleOf: number | undefined;
}

export interface BooleanNode extends NodeBase {
  kind: 'boolean';
}

/** `type: 'null'` alone. */
export interface NullNode extends NodeBase {
  kind: 'null';
}

/** `enum`: one of these values (whatever `type` says beside it). */
export interface EnumNode extends NodeBase {
  kind: 'enum';
  values: JsonValue[];
  /** The non-null types written beside it (`type: string`), [] when none. */
  types: string[];
}

/** `const`: exactly this value. */
export interface ConstNode extends NodeBase {
  kind: 'const';
  value: JsonValue;
  /** The non-null types written beside it (`type: string`), [] when none. */
  types: string[];
}

/** One value of a discriminator and the named schema it selects. */
export interface DiscriminatorMapping {
  value: string;
  /** The component schema's name; undefined when the target is not a component schema (`ref` says where it points). */
  name: string | undefined;
  ref: string;
  /** false: the implicit value of a `$ref` variant the `mapping` does not list (its schema's name, as OpenAPI says). */
  declared: boolean;
}

export interface Discriminator {
  propertyName: string;
  /** The declared `mapping` in declaration order, then the implicit values of the other `$ref` variants. */
  mapping: DiscriminatorMapping[];
}

/**
 * `oneOf` or `anyOf`, or a 3.1 type array of several non-null types (`combinator: 'type'`: one variant per type, each
 * with the schema's keywords of that type).
 */
export interface UnionNode extends NodeBase {
  kind: 'union';
  combinator: 'oneOf' | 'anyOf' | 'type';
  variants: SchemaNode[];
  discriminator: Discriminator | undefined;
}

/** `allOf` (every member holds), or a schema whose own keywords sit beside combinators (D478 a schema's own keywords beside combinators become an allOf of its parts). */
export interface AllOfNode extends NodeBase {
  kind: 'allOf';
  members: SchemaNode[];
}

export interface NotNode extends NodeBase {
  kind: 'not';
  node: SchemaNode;
}

/** A `$ref` to a component schema: `ApiModel.schemas` holds the named node (the reference may be recursive). */
export interface RefNode extends NodeBase {
  kind: 'ref';
  /** The `components.schemas` name. */
  name: string;
  /** The target's pointer (`#/components/schemas/<escaped name>`). */
  ref: string;
}

/** A typed schema. */
export type SchemaNode =
  | UnknownNode
  | NeverNode
  | ObjectNode
  | ArrayNode
  | StringNode
  | NumberNode
  | BooleanNode
  | NullNode
  | EnumNode
  | ConstNode
  | UnionNode
  | AllOfNode
  | NotNode
  | RefNode;

/** The kinds of {@link SchemaNode}. */
export type SchemaNodeKind = SchemaNode['kind'];

/** A component schema as a typed node (`components.schemas.<name>`). */
export interface NamedSchemaNode {
  name: string;
  /** `#/components/schemas/<escaped name>`. */
  ref: string;
  node: SchemaNode;
}
