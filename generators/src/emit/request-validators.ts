/**
 * Server request validators, precompiled: for every operation, Ajv standalone functions for the query, the declared
 * headers (lower-cased), the path parameters and each request body media type, plus the parameter rules the runtime
 * applies before them (styles, reserved characters, unknown and empty query parameters, body media types). Built from
 * the intermediate model only. Paygate's rules are written down in docs/request-validation.md; the runtime is
 * packages/server/src/runtime/request-validation.ts. Parameters are validated with `coerceTypes`, bodies without;
 * `useDefaults`, `allErrors`, formats from ajv-formats "fast".
 */
import AjvModule from 'ajv';
import { fastFormats, fullFormats } from 'ajv-formats/dist/formats.js';
import { RefResolver } from '../model/ref-resolver.js';
import type { ApiModel, OperationModel, ParameterModel, SecuritySchemeModel } from '../model/types.js';
import { openapiFileOf, pointerToken, UnsupportedSpecError } from '../parse/refusal.js';
import {
  addFormats,
  compactStandaloneCode,
  compileEach,
  createStandaloneAjv,
  isObj,
  standaloneModule,
  toAjvSchema,
  type StandaloneAjv,
} from './ajv-standalone.js';
import type { EmitContext, Emitter, GeneratedFile } from './context.js';
import { runtimeSpecifier } from './context.js';
import { operationTypeNames } from './names.js';
import { closedAllOfDeclared } from './closed-all-of.js';
import { readOnlyNotRequired } from './read-only.js';
import { enumOfDeclaredType, typedByEnum } from './untyped-enum.js';
import { reachableDigest } from '../incremental/reads.js';
import { SUBSCHEMA_KEYWORDS } from '../util/json.js';

type Obj = Record<string, unknown>;

/** Header parameters OpenAPI says SHALL be ignored (D409 accept, Content-Type and Authorization parameters ignored). */
const IGNORED_HEADER_PARAMETERS: ReadonlySet<string> = new Set(['accept', 'content-type', 'authorization']);
const PARAMS_ROOT = 'request-params.json';
const BODY_ROOT = 'request-body.json';
const RESERVED_DEF_PREFIX = '__req_';
/** Annotations that never change a validation result: left out of the generated code. */
const ANNOTATIONS = new Set(['description', 'title', '$comment', 'deprecated']);

/** Ajv options of request validation (docs/request-validation.md, section 7). */
const REQUEST_AJV_OPTIONS = {
  strict: false,
  strictNumbers: true,
  // D198: a tuple without `minItems`/`items: false` is valid JSON Schema; strict tuple mode would refuse to compile it.
  strictTuples: false,
  allowUnionTypes: false,
  validateSchema: false,
  useDefaults: true,
  allErrors: true,
  validateFormats: true,
} as const;

/** The formats checked in full (calendar days, RFC 3986 URIs); see requestFormats. */
const CALENDAR_FORMATS: Record<string, unknown> = { date: fullFormats.date, 'date-time': fullFormats['date-time'], uri: fullFormats.uri };
/** The same table in the generated module: the very functions it was compiled with, read from ajv-formats at run time. */
const CALENDAR_FORMATS_RUNTIME =
  'const { fastFormats, fullFormats } = require("ajv-formats/dist/formats"); ' +
  'const formats = { ...fastFormats, date: fullFormats.date, "date-time": fullFormats["date-time"], uri: fullFormats.uri };';

/**
 * Formats: ajv-formats "fast", except `date` and `date-time`, which are checked as real calendar days ("full": no
 * 2026-02-30, leap years honoured; a date that passes is one PostgreSQL and every client can store), and `uri`,
 * checked against RFC 3986 in full ("fast" lets `"`, `<`, `>`, `\` and `{}` through: a URL the gateway later puts in
 * an HTML form or a Location must not carry them), plus
 * `media-range` (accepted) for OpenAPI 3.1. The runtime builds the same table (CALENDAR_FORMATS_RUNTIME).
 */
function requestFormats(openapiVersion: string): Record<string, unknown> {
  const table: Record<string, unknown> = { ...(fastFormats as Record<string, unknown>), ...CALENDAR_FORMATS };
  if (openapiVersion.startsWith('3.1')) table['media-range'] = true;
  return table;
}

/** How the runtime parses one parameter before validation (see request-validation.ts `ParameterRule`). */
export interface ParameterRuleView {
  name: string;
  in: 'query' | 'header' | 'path';
  parse: 'none' | 'json' | 'wrap' | 'split' | 'formObject' | 'formExplode' | 'deepObject' | 'deepArray' | 'pathStyle';
  delimiter?: string;
  properties?: string[];
  arrayProperties?: string[];
  jsonProperties?: string[];
  additional?: boolean;
  emptyObject?: boolean;
  jsonItems?: boolean;
  reserved?: 'whole' | 'comma';
  style?: 'simple' | 'label' | 'matrix';
  explode?: boolean;
  shape?: 'array' | 'object';
  orPrimitive?: boolean;
}

/** The styles OpenAPI defines for path parameters. */
const PATH_STYLES: ReadonlySet<string> = new Set(['simple', 'label', 'matrix']);

interface OperationView {
  key: string;
  fields: { name: string; value: string }[];
}

/** Array delimiters of non-exploded query arrays, by style. */
const QUERY_ARRAY_DELIMITER: Record<string, string> = { form: ',', spaceDelimited: ' ', pipeDelimited: '|' };

const JSON_MEDIA_TYPE = /^[^/]+\/([^;+]*\+)?json\b|^[^/]+\/json\b/i;

class UnsupportedParameterError extends Error {}

/** Resolves `#/components/schemas/...` refs against the model's schemas (the only refs left in bundled schemas). */
export function modelSchemaResolver(model: Pick<ApiModel, 'schemas'>): RefResolver {
  return new RefResolver({ components: { schemas: Object.fromEntries(model.schemas.map((s) => [s.name, s.schema])) } });
}

/** The JSON types a schema admits by its `type` alone (`integer` within `number`), or undefined when it does not say. */
function declaredTypes(schema: unknown, resolver: RefResolver): Set<string> | undefined {
  const s = resolver.deref<unknown>(schema);
  if (!isObj(s)) return undefined;
  const type = s.type;
  const list = typeof type === 'string' ? [type] : Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : [];
  if (list.length === 0) return undefined;
  const out = new Set(list);
  if (out.has('number')) out.add('integer');
  if (out.has('integer')) out.add('number');
  return out;
}

/**
 * D432: a parameter's `oneOf` whose alternatives declare types no two of them share (GitHub's `workflow_id`,
 * `oneOf: [{type: integer}, {type: string}]`) validated as `anyOf`. A parameter arrives as text and is coerced: Ajv
 * coerces `"42"` to 42 for the integer alternative and back to `"42"` for the string one, so both match and `oneOf`
 * refused every numeric id. As JSON values the alternatives cannot both match (their types are disjoint), so `anyOf`
 * accepts exactly what `oneOf` means; alternatives that may overlap keep `oneOf`.
 */
export function coercibleOneOf(schema: unknown, resolver: RefResolver): unknown {
  if (!isObj(schema) || !Array.isArray(schema.oneOf) || schema.anyOf !== undefined) return schema;
  const seen = new Set<string>();
  for (const alternative of schema.oneOf) {
    const types = declaredTypes(alternative, resolver);
    if (types === undefined) return schema;
    for (const t of types) {
      if (seen.has(t)) return schema;
      seen.add(t);
    }
  }
  const { oneOf, ...rest } = schema;
  return { ...rest, anyOf: oneOf };
}

class RuleBuilder {
  constructor(private readonly resolver: RefResolver) {}

  /** The parameter's schema as validated: a `$ref` schema is replaced by its target (one level), so its `default` applies. */
  parameterSchema(p: ParameterModel): unknown {
    let schema: unknown = p.schema;
    if (isObj(schema) && typeof schema.$ref === 'string') schema = this.resolver.get(schema.$ref);
    return schema ?? {};
  }

  private isObject(schema: unknown, depth = 0): boolean {
    const s = this.resolver.deref<unknown>(schema);
    if (!isObj(s) || depth > 8) return false;
    if (s.type === 'object' || (s.type === undefined && isObj(s.properties))) return true;
    return ['allOf', 'oneOf', 'anyOf'].some((k) => Array.isArray(s[k]) && (s[k] as unknown[]).some((m) => this.isObject(m, depth + 1)));
  }

  /** Whether a schema takes a string, number, integer or boolean (itself, or one of its `oneOf`/`anyOf` alternatives). */
  private admitsPrimitive(schema: unknown, depth = 0): boolean {
    const s = this.resolver.deref<unknown>(schema);
    if (!isObj(s) || depth > 8) return false;
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (types.some((t) => t === 'string' || t === 'number' || t === 'integer' || t === 'boolean')) return true;
    if (Array.isArray(s.enum) && s.enum.some((v) => v !== null && typeof v !== 'object')) return true;
    return ['oneOf', 'anyOf'].some((k) => Array.isArray(s[k]) && (s[k] as unknown[]).some((m) => this.admitsPrimitive(m, depth + 1)));
  }

  private isArray(schema: unknown): boolean {
    return this.arraySchema(schema) !== undefined;
  }

  /** The array schema itself, or the `allOf` member that is one (a converted spec's `allOf: [{$ref}, {description}]`). */
  private arraySchema(schema: unknown, depth = 0): Obj | undefined {
    const s = this.resolver.deref<unknown>(schema);
    if (!isObj(s) || depth > 8) return undefined;
    if (s.type === 'array' || (Array.isArray(s.type) && s.type.includes('array'))) return s;
    if (s.type === undefined && Array.isArray(s.allOf))
      for (const member of s.allOf) {
        const found = this.arraySchema(member, depth + 1);
        if (found !== undefined) return found;
      }
    return undefined;
  }

  /** An array whose items are objects (each sent as its JSON text, D456). */
  private hasObjectItems(schema: unknown): boolean {
    const s = this.arraySchema(schema);
    return s !== undefined && this.isObject(s.items);
  }

  /** An object that admits properties it does not declare (`additionalProperties` other than false). */
  private isFreeForm(schema: unknown): boolean {
    const s = this.resolver.deref<unknown>(schema);
    return isObj(s) && s.additionalProperties !== undefined && s.additionalProperties !== false;
  }

  /** Paygate's parameter rules (docs/request-validation.md, section 5); cookies are not read, so they get none. */
  rule(p: ParameterModel, schema: unknown): ParameterRuleView | undefined {
    if (p.in === 'cookie') return undefined;
    // D409: OpenAPI says a header parameter named Accept, Content-Type or Authorization SHALL be ignored (the body's
    // media type and the security schemes say those): VTEX declares a required `Content-Type` on its GETs, and a
    // validator for it refused every GET without a body.
    if (p.in === 'header' && IGNORED_HEADER_PARAMETERS.has(p.name.toLowerCase())) return undefined;
    const unsupported = (what: string): never => {
      throw new UnsupportedParameterError(`${p.in} parameter '${p.name}': ${what}`);
    };
    const rule: ParameterRuleView = { name: p.in === 'header' ? p.name.toLowerCase() : p.name, in: p.in, parse: 'none' };
    if (p.content !== undefined) {
      if (JSON_MEDIA_TYPE.test(p.content.mediaType.split(';')[0]!.trim())) rule.parse = 'json';
    } else if (p.in === 'path') {
      this.pathRule(p, schema, rule, unsupported);
    } else if (p.in !== 'query') {
      if (p.style !== 'simple') unsupported(`style '${p.style}' is not parsed (header parameters use 'simple')`);
      if (this.isObject(schema)) unsupported('objects are only parsed in query and path parameters');
      if (this.isArray(schema)) {
        rule.parse = 'split';
        rule.delimiter = ',';
      }
    } else if (this.isObject(schema)) {
      // D456 query objects and arrays of objects serialised: an object (or an array of objects) inside one is its JSON text
      const shape = this.resolver.objectShape(schema).properties;
      const jsonProperties = (properties: readonly string[]): string[] =>
        properties.filter((k) => this.isObject(shape[k]) || this.hasObjectItems(shape[k]));
      if (p.style === 'form' && p.explode) {
        rule.parse = 'formExplode';
        rule.properties = this.properties(schema);
        rule.arrayProperties = rule.properties.filter((k) => this.isArray(shape[k]));
        const json = jsonProperties(rule.properties);
        if (json.length > 0) rule.jsonProperties = json;
        if (this.isFreeForm(schema)) rule.additional = true;
        if (p.required) rule.emptyObject = true;
      } else if (p.style === 'form') {
        rule.parse = 'formObject';
      } else if (p.style === 'deepObject') {
        rule.parse = 'deepObject';
        const json = jsonProperties(this.properties(schema));
        if (json.length > 0) rule.jsonProperties = json;
      } else {
        unsupported(`style '${p.style}' is not defined for objects`);
      }
    } else if (this.isArray(schema)) {
      if (p.style === 'deepObject') {
        // OpenAPI leaves deepObject arrays undefined; Stripe's `expand[]=a&expand[]=b` (and `expand[0]=a`) is the
        // common reading, so that is what the scaffold parses (D117 deepObject arrays read as Stripe sends them).
        rule.parse = 'deepArray';
      } else if (p.explode) {
        rule.parse = 'wrap';
      } else {
        const delimiter = QUERY_ARRAY_DELIMITER[p.style];
        if (delimiter === undefined) unsupported(`style '${p.style}' is not defined for arrays`);
        rule.parse = 'split';
        rule.delimiter = delimiter;
      }
      if (this.hasObjectItems(schema)) rule.jsonItems = true;
    }
    // Non-exploded values may hold commas (OpenAPI's delimiter for them); nothing else reserved, unless allowReserved.
    if (p.in === 'query' && !p.allowReserved) rule.reserved = p.explode ? 'whole' : 'comma';
    return rule;
  }

  /**
   * A path parameter by its style (D413, "Object path parameters read by their style"): a `simple` primitive as sent
   * and a `simple` array split at commas (as before); a `simple` object, and any `label` or `matrix` value, read by the
   * runtime's `pathStyle` (packages/server/src/runtime/path-styles.ts). An object or array item that is itself an
   * object is its JSON text, as in a query (D456 query objects and arrays of objects serialised).
   */
  private pathRule(p: ParameterModel, schema: unknown, rule: ParameterRuleView, unsupported: (what: string) => never): void {
    if (!PATH_STYLES.has(p.style)) unsupported(`style '${p.style}' is not defined for path parameters`);
    const style = p.style as 'simple' | 'label' | 'matrix';
    const shape = this.isObject(schema) ? 'object' : this.isArray(schema) ? 'array' : undefined;
    if (style === 'simple' && shape !== 'object') {
      if (shape === 'array') {
        rule.parse = 'split';
        rule.delimiter = ',';
      }
      return;
    }
    rule.parse = 'pathStyle';
    if (style !== 'simple') rule.style = style;
    if (p.explode) rule.explode = true;
    if (shape !== undefined) rule.shape = shape;
    // a union that also takes a primitive (Graph's OData function parameters: a string enum or an object): a value
    // not written as the shape is read as text and validation chooses the alternative
    if (shape !== undefined && this.admitsPrimitive(schema)) rule.orPrimitive = true;
    if (shape === 'array' && this.hasObjectItems(schema)) rule.jsonItems = true;
    if (shape === 'object') {
      const properties = this.resolver.objectShape(schema).properties;
      const json = this.properties(schema).filter((k) => this.isObject(properties[k]) || this.hasObjectItems(properties[k]));
      if (json.length > 0) rule.jsonProperties = json;
    }
  }

  /** Properties of an object schema (merging allOf/oneOf/anyOf members). */
  private properties(schema: unknown): string[] {
    const s = this.resolver.deref<unknown>(schema);
    const out = new Set(Object.keys(this.resolver.objectShape(s).properties));
    if (isObj(s))
      for (const key of ['oneOf', 'anyOf'])
        if (Array.isArray(s[key]))
          for (const m of s[key] as unknown[]) for (const k of Object.keys(this.resolver.objectShape(m).properties)) out.add(k);
    return [...out];
  }
}

function js(value: unknown): string {
  return JSON.stringify(value);
}

interface Compiled {
  code: string;
  operations: OperationView[];
  /** Validators Ajv could not compile: their operation part is not validated (D198 tolerant schema compilation). */
  notValidated: NotValidatedPart[];
}

/** A request validator Ajv cannot compile (D198 tolerant schema compilation): left out, its operation part not validated, said at start-up. */
export interface NotValidatedPart {
  /** The validator's function name (`validateGetAQuery`, `validateCreateOrderBody0`). */
  validator: string;
  /** JSON pointer of the operation (parameters) or of the request body media type's schema. */
  pointer: string;
  /** Ajv's reason. */
  reason: string;
}

/**
 * Every validator of `notValidated` out of its operation's table entry: a parameter group's field goes (the runtime
 * then checks that group's parse rules only), a body media type accepts any body; and the entry gets `notValidated`,
 * which the runtime prints once at start-up naming the operation (D198 tolerant schema compilation).
 */
function markNotValidated(operations: OperationView[], notValidated: readonly NotValidatedPart[]): void {
  if (notValidated.length === 0) return;
  const byName = new Map(notValidated.map((n) => [n.validator, n]));
  for (const op of operations) {
    const parts: string[] = [];
    op.fields = op.fields.flatMap((field) => {
      const group = byName.get(field.value);
      if (group !== undefined) {
        parts.push(`${field.name} (${group.reason})`);
        return [];
      }
      if (field.name !== 'body') return [field];
      const value = field.value.replace(
        /(\{ mediaType: ("(?:[^"\\]|\\.)*"), validate: )(\w+)\b/g,
        (match, head: string, mediaType: string, fn: string) => {
          const body = byName.get(fn);
          if (body === undefined) return match;
          parts.push(`body ${JSON.parse(mediaType) as string} (${body.reason})`);
          return `${head}() => true`;
        },
      );
      return [{ name: field.name, value }];
    });
    if (parts.length > 0) op.fields.push({ name: 'notValidated', value: js(parts.join('; ')) });
  }
}

/** What the request validators read of an operation: the cache key (D442 request validators reused by the schemas their requests reach) is these and the schemas they reach. */
export type RequestOperation = Pick<
  OperationModel,
  'operationId' | 'method' | 'path' | 'parameterList' | 'requestBody' | 'extensions' | 'security'
>;

/** What the request validators read of the model: nothing else reaches compileRequestValidators. */
export interface RequestValidatorInputs extends Pick<ApiModel, 'schemas' | 'securitySchemes' | 'openapiVersion' | 'source'> {
  operations: RequestOperation[];
}

/** D442: the model narrowed to what the validators read (their key hashes exactly this). */
export function requestValidatorInputs(model: ApiModel): RequestValidatorInputs {
  return {
    schemas: model.schemas,
    securitySchemes: model.securitySchemes,
    openapiVersion: model.openapiVersion,
    source: model.source,
    operations: model.operations.map(({ operationId, method, path, parameterList, requestBody, extensions, security }) => ({
      operationId,
      method,
      path,
      parameterList,
      requestBody,
      extensions,
      security,
    })),
  };
}

/** Builds the two `$defs` roots (parameters, coerced; bodies, not coerced), compiles them and lays out the table. */
export function compileRequestValidators(ctx: { model: RequestValidatorInputs }): Compiled {
  const { model } = ctx;
  const resolver = modelSchemaResolver(model);
  const rules = new RuleBuilder(resolver);
  const names = operationTypeNames(model.operations);
  const resolveOrNothing = (ref: string): unknown => {
    try {
      return resolver.get(ref);
    } catch {
      return undefined;
    }
  };
  // a body schema as requests are checked against it: readOnly properties not required (D453 readOnly properties not
  // required in requests), a closed allOf's member properties not additional (D454 additionalProperties false beside
  // allOf counts the members' properties)
  const requestBodySchema = (schema: unknown): unknown =>
    closedAllOfDeclared(readOnlyNotRequired(schema, resolveOrNothing), resolveOrNothing);

  const paramDefs: Obj = {};
  const bodyDefs: Obj = {};
  for (const { name, schema } of model.schemas) {
    if (name.startsWith(RESERVED_DEF_PREFIX)) {
      throw new UnsupportedSpecError(
        openapiFileOf(model.source),
        `#/components/schemas/${pointerToken(name)}`,
        `schema names starting with ${RESERVED_DEF_PREFIX} are reserved by the request-validators emitter.`,
        'rename the schema (and its $refs).',
      );
    }
    paramDefs[name] = toAjvSchema(schema, PARAMS_ROOT, ANNOTATIONS);
    bodyDefs[name] = toAjvSchema(requestBodySchema(schema), BODY_ROOT, ANNOTATIONS);
  }

  // Canonical JSON of an operation's def -> its key: operations with identical parameter groups or bodies (GitHub's
  // `{ owner, repo }` path parameters: hundreds of operations) share one compiled function (D155 validators compiled with inlineRefs off).
  const paramKeys = new Map<string, string>();
  const bodyKeys = new Map<string, string>();
  /**
   * A parameter's schema as one shared def its group refers to (D155 validators compiled with inlineRefs off): GitHub's `owner`, `per_page`... are declared by
   * hundreds of operations, and each copy was a block of coercion code. The `default` stays beside the `$ref` too,
   * because `useDefaults` reads it from the group's `properties` (a referenced function never sees a missing value).
   */
  const sharedParameter = (schema: unknown): unknown => {
    if (!isObj(schema) || Object.keys(schema).length === 0 || (schema.$ref !== undefined && Object.keys(schema).length === 1))
      return schema;
    const key = sharedDef(paramDefs, paramKeys, `${RESERVED_DEF_PREFIX}parameter${paramKeys.size}`, schema);
    return { $ref: `${PARAMS_ROOT}#/$defs/${key}`, ...(schema.default === undefined ? {} : { default: schema.default }) };
  };
  // D161: a subschema repeated inline across (or within) request bodies (Stripe's `allowed_categories` enum, its
  // payment-method option objects: the same shape in dozens of bodies) becomes one shared def every copy refers to,
  // as `$ref`'d components already are (D155 validators compiled with inlineRefs off), instead of a copy of its code per place.
  const bodySchemaOf = (mediaSchema: unknown): unknown => {
    const schema = isObj(mediaSchema) && typeof mediaSchema.$ref === 'string' ? resolver.get(mediaSchema.$ref) : (mediaSchema ?? {});
    return toAjvSchema(requestBodySchema(schema), BODY_ROOT, ANNOTATIONS);
  };
  const repeats = repeatedSubschemas(model.operations.flatMap((op) => (op.requestBody?.content ?? []).map((m) => bodySchemaOf(m.schema))));
  const sharedKeys = new Map<string, string>();
  const hoist = (node: unknown): unknown =>
    mapSubschemas(node, (sub) => {
      const canonical = JSON.stringify(sub);
      if (!repeats.has(canonical)) return undefined;
      let key = sharedKeys.get(canonical);
      if (key === undefined) {
        key = `${RESERVED_DEF_PREFIX}shared${sharedKeys.size}`;
        sharedKeys.set(canonical, key);
        bodyDefs[key] = hoist(withoutSubschemaHoisting(sub));
      }
      // `default` stays beside the `$ref`: useDefaults reads it from the parent's `properties` (as D155's parameters)
      return { $ref: `${BODY_ROOT}#/$defs/${key}`, ...(isObj(sub) && sub.default !== undefined ? { default: sub.default } : {}) };
    });
  const paramExports: Record<string, string> = {};
  const bodyExports: Record<string, string> = {};
  /** Validator function name -> JSON pointer of its operation. */
  const exportPointers = new Map<string, string>();
  const operations: OperationView[] = [];
  for (const op of model.operations) {
    const typeName = names.get(op.operationId)!;
    const fields: OperationView['fields'] = [];
    const parameterRules: ParameterRuleView[] = [];
    const groups: Record<'query' | 'headers' | 'params', { properties: Obj; required: string[] } | undefined> = {
      query: undefined,
      headers: undefined,
      params: undefined,
    };
    let allowUnknownQuery = op.extensions['x-allow-unknown-query-parameters'];
    const allowEmpty: string[] = [];
    let unsupported: string | undefined;
    for (const p of op.parameterList) {
      const location = p.in;
      const schema = rules.parameterSchema(p);
      let rule: ParameterRuleView | undefined;
      try {
        rule = rules.rule(p, schema);
      } catch (error) {
        if (error instanceof UnsupportedParameterError) {
          unsupported = `operation ${op.operationId}: ${error.message}`;
          break;
        }
        throw error;
      }
      if (rule === undefined) continue; // cookies are never parsed by the scaffold, so never validated
      parameterRules.push(rule);
      const group = location === 'query' ? 'query' : location === 'header' ? 'headers' : 'params';
      const target = (groups[group] ??= { properties: {}, required: [] });
      target.properties[rule.name] = sharedParameter(
        toAjvSchema(enumOfDeclaredType(typedByEnum(coercibleOneOf(schema, resolver))), PARAMS_ROOT, ANNOTATIONS),
      );
      if (p.required) target.required.push(rule.name);
      if (location === 'query' && p.allowEmptyValue) allowEmpty.push(rule.name);
      // A form-exploded free-form object takes any other query key as one of its properties.
      if (
        rule.parse === 'formExplode' &&
        isObj(schema) &&
        schema.additionalProperties !== undefined &&
        schema.additionalProperties !== false
      )
        allowUnknownQuery ??= true;
    }
    if (unsupported !== undefined) {
      // Skipped on the server side only (the contract and the client still generate): the scaffold answers 501 and
      // says so at start-up; generation warns naming it (unsupportedServerOperations).
      operations.push({
        key: js(op.operationId),
        fields: [
          { name: 'parameters', value: '[]' },
          { name: 'queryNames', value: '[]' },
          { name: 'unsupported', value: js(unsupported) },
        ],
      });
      continue;
    }
    for (const [group, suffix] of [
      ['query', 'Query'],
      ['headers', 'Headers'],
      ['params', 'Params'],
    ] as const) {
      const g = groups[group];
      if (g === undefined) continue;
      const key = sharedDef(paramDefs, paramKeys, `${RESERVED_DEF_PREFIX}${typeName}_${group}`, {
        type: 'object',
        properties: g.properties,
        ...(g.required.length > 0 ? { required: g.required } : {}),
      });
      const fn = `validate${typeName}${suffix}`;
      paramExports[fn] = `${PARAMS_ROOT}#/$defs/${key}`;
      exportPointers.set(fn, operationPointer(op));
      fields.push({ name: group, value: fn });
    }
    const queryNames = groups.query === undefined ? [] : Object.keys(groups.query.properties);
    fields.push({ name: 'parameters', value: js(parameterRules) });
    fields.push({ name: 'queryNames', value: js(queryNames) });
    if (allowEmpty.length > 0) fields.push({ name: 'allowEmptyValue', value: js(allowEmpty) });
    if (allowUnknownQuery === true) fields.push({ name: 'allowUnknownQuery', value: 'true' });
    const securityQuery = securityQueryParams(op, model.securitySchemes);
    if (securityQuery.length > 0) fields.push({ name: 'securityQueryParams', value: js(securityQuery) });

    const requestBody = op.requestBody;
    if (requestBody !== undefined && requestBody.content.length > 0) {
      const media: string[] = [];
      requestBody.content.forEach((mediaModel, index) => {
        const rawSchema = mediaModel.schema;
        const schema = isObj(rawSchema) && typeof rawSchema.$ref === 'string' ? resolver.get(rawSchema.$ref) : (rawSchema ?? {});
        const binary = isObj(schema) && schema.format === 'binary';
        const required = !binary && isObj(schema) && Boolean(schema.required);
        const key = sharedDef(bodyDefs, bodyKeys, `${RESERVED_DEF_PREFIX}${typeName}_body${index}`, {
          properties: { body: binary ? {} : hoist(bodySchemaOf(rawSchema)) },
          ...(required ? { required: ['body'] } : {}),
        });
        const fn = `validate${typeName}Body${index}`;
        bodyExports[fn] = `${BODY_ROOT}#/$defs/${key}`;
        exportPointers.set(fn, `${operationPointer(op)}/requestBody/content/${pointerToken(mediaModel.mediaType)}/schema`);
        const props = isObj(schema) && isObj(schema.properties) ? schema.properties : {};
        const jsonFields =
          mediaModel.mediaType !== 'multipart/form-data'
            ? []
            : Object.keys(props).filter((k) => isObj(props[k]) && ['array', 'object'].includes((props[k] as Obj).type as string));
        media.push(
          `{ mediaType: ${js(mediaModel.mediaType)}, validate: ${fn}${jsonFields.length > 0 ? `, jsonFields: ${js(jsonFields)}` : ''} }`,
        );
      });
      fields.push({ name: 'body', value: `{ required: ${requestBody.required ? 'true' : 'false'}, content: [${media.join(', ')}] }` });
      if (requestBody.content.some((c) => c.mediaType === 'multipart/form-data')) fields.push({ name: 'multipart', value: 'true' });
    }
    operations.push({ key: js(op.operationId), fields });
  }

  const options = { ...REQUEST_AJV_OPTIONS, code: { formats: AjvModule._`formats` } };
  const createAjv = (): StandaloneAjv => {
    const ajv = createStandaloneAjv(model.openapiVersion, { ...options, coerceTypes: true });
    addFormats(ajv, requestFormats(model.openapiVersion), 'runtime');
    ajv.addSchema({ $id: PARAMS_ROOT, $defs: paramDefs });
    ajv.addSchema({ $id: BODY_ROOT, $defs: bodyDefs });
    return ajv;
  };
  const ajv = createAjv();
  // D198: one instance (one standalone module), two coercion modes: every parameter validator with `coerceTypes`, then
  // every body validator without (the two roots share no schema, so no compiled function is reused across modes). A
  // validator Ajv cannot compile is left out, never the document: its operation part goes unvalidated (notValidated).
  const opts = ajv.opts as { coerceTypes?: boolean };
  const failed = compileEach(ajv, Object.values(paramExports));
  opts.coerceTypes = false;
  for (const [ref, reason] of compileEach(ajv, Object.values(bodyExports))) failed.set(ref, reason);
  const compiled = (exports: Record<string, string>) => Object.fromEntries(Object.entries(exports).filter(([, ref]) => !failed.has(ref)));
  // Non-regex formats (int32, byte, ...) are read from ajv-formats at run time, the very table they were compiled with.
  const module = standaloneModule(ajv, { ...compiled(paramExports), ...compiled(bodyExports) }, (source) =>
    /\bformats(\.|\[)/.test(source) ? [CALENDAR_FORMATS_RUNTIME] : [],
  );
  // D190: the same code, shorter; `schemaPath` is not read by the runtime (errors become `details` from the rest).
  const code = compactStandaloneCode(module, { dropSchemaPath: true });
  const notValidated: NotValidatedPart[] = [];
  for (const [fn, ref] of [...Object.entries(paramExports), ...Object.entries(bodyExports)]) {
    const reason = failed.get(ref);
    if (reason !== undefined) notValidated.push({ validator: fn, pointer: exportPointers.get(fn) ?? '', reason });
  }
  markNotValidated(operations, notValidated);
  return { code, operations, notValidated };
}

/** Shorter subschemas are not worth a function call and a def (their code is a few lines). */
const MIN_SHARED_LENGTH = 200;

/**
 * A copy of `schema` where each subschema (not the root) for which `replace` returns a value is replaced by it
 * (not descended into); the others are descended into. Only schema positions are visited: an `enum`, a `default` or
 * a `properties` map itself is never a subschema.
 */
function mapSubschemas(schema: unknown, replace: (sub: unknown) => unknown): unknown {
  if (!isObj(schema)) return schema;
  const visit = (sub: unknown): unknown => replace(sub) ?? mapSubschemas(sub, replace);
  const out: Obj = {};
  for (const [key, value] of Object.entries(schema)) {
    if (SUBSCHEMA_KEYWORDS.one.has(key)) out[key] = Array.isArray(value) ? value.map(visit) : visit(value);
    else if (SUBSCHEMA_KEYWORDS.list.has(key) && Array.isArray(value)) out[key] = value.map(visit);
    else if (SUBSCHEMA_KEYWORDS.map.has(key) && isObj(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([n, v]) => [n, visit(v)]));
    else out[key] = value;
  }
  return out;
}

/** The subschema itself, its `default` left to its referrer (see hoist). */
function withoutSubschemaHoisting(sub: unknown): unknown {
  if (!isObj(sub) || sub.default === undefined) return sub;
  const { default: _default, ...rest } = sub;
  return rest;
}

/** Canonical JSON of every object subschema of at least MIN_SHARED_LENGTH that occurs twice or more in `roots`. */
function repeatedSubschemas(roots: readonly unknown[]): Set<string> {
  const counts = new Map<string, number>();
  const count = (sub: unknown): undefined => {
    if (isObj(sub) && !(typeof sub.$ref === 'string' && Object.keys(sub).length === 1)) {
      const canonical = JSON.stringify(sub);
      if (canonical.length >= MIN_SHARED_LENGTH) counts.set(canonical, (counts.get(canonical) ?? 0) + 1);
    }
    return undefined;
  };
  for (const root of roots) mapSubschemas(root, count);
  return new Set([...counts].filter(([, n]) => n >= 2).map(([canonical]) => canonical));
}

/**
 * Adds `def` under `key` unless an identical def (same canonical JSON: toAjvSchema sorts keys) is there already, and
 * returns the key it is found under. The validator of every operation sharing it is then the same function.
 */
function sharedDef(defs: Obj, keys: Map<string, string>, key: string, def: Obj): string {
  const canonical = JSON.stringify(def);
  const existing = keys.get(canonical);
  if (existing !== undefined) return existing;
  keys.set(canonical, key);
  defs[key] = def;
  return key;
}

/**
 * The query parameters of an operation the generated client must write by their declared style, as the scaffold reads
 * them (the same rules): where openapi-fetch's one default (arrays form exploded, objects deepObject, nested objects as
 * `String()`) is not it (D456 query objects and arrays of objects serialised). Undefined when there is none.
 */
export function clientQueryStyles(
  resolver: RefResolver,
  op: Pick<OperationModel, 'parameterList'>,
): Record<string, { style?: string; explode?: boolean; content?: boolean }> | undefined {
  const rules = new RuleBuilder(resolver);
  const out: Record<string, { style?: string; explode?: boolean; content?: boolean }> = {};
  for (const p of op.parameterList) {
    if (p.in !== 'query') continue;
    let rule: ParameterRuleView | undefined;
    try {
      rule = rules.rule(p, rules.parameterSchema(p));
    } catch (error) {
      if (error instanceof UnsupportedParameterError) continue;
      throw error;
    }
    if (rule === undefined) continue;
    if (rule.parse === 'json') out[p.name] = { content: true };
    else if (rule.parse === 'formExplode') out[p.name] = {};
    else if (rule.parse === 'formObject') out[p.name] = { explode: false };
    else if (rule.parse === 'split') out[p.name] = { style: p.style, explode: false };
    else if (rule.parse === 'wrap' && rule.jsonItems === true) out[p.name] = {};
    else if ((rule.parse === 'deepObject' && rule.jsonProperties !== undefined) || (rule.parse === 'deepArray' && rule.jsonItems === true))
      out[p.name] = { style: 'deepObject' };
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** What the server side skips (a parameter style the scaffold cannot parse), with the fix: generation warns. */
export function unsupportedServerOperations(
  model: Pick<ApiModel, 'operations' | 'schemas' | 'source'>,
): { operationId: string; pointer: string; problem: string; fix: string }[] {
  const rules = new RuleBuilder(modelSchemaResolver(model));
  const out: { operationId: string; pointer: string; problem: string; fix: string }[] = [];
  for (const op of model.operations) {
    for (const p of op.parameterList) {
      try {
        rules.rule(p, rules.parameterSchema(p));
      } catch (error) {
        if (!(error instanceof UnsupportedParameterError)) throw error;
        out.push({
          operationId: op.operationId,
          pointer: `${openapiFileOf(model.source)}${p.level === 'path' ? pathItemPointer(op) : operationPointer(op)}/parameters`,
          problem: `operation ${op.operationId}: ${error.message}`,
          fix: UNSUPPORTED_FIX,
        });
        break;
      }
    }
  }
  return out;
}

const UNSUPPORTED_FIX =
  'declare the parameter with a style the scaffold parses: query arrays form, spaceDelimited, pipeDelimited or deepObject (name[]=a&name[]=b); query objects form or deepObject; path parameters simple, label or matrix; header parameters simple, primitives or arrays (the request-validation rules of @paygate/server), or send it in a JSON body.';

/** JSON pointer of an operation in the bundled document. */
function operationPointer(op: Pick<OperationModel, 'path' | 'method'>): string {
  return `${pathItemPointer(op)}/${op.method}`;
}

function pathItemPointer(op: Pick<OperationModel, 'path'>): string {
  return `#/paths/${pointerToken(op.path)}`;
}

/** Names of apiKey-in-query security schemes of the operation (allowed as query parameters). */
function securityQueryParams(op: RequestOperation, schemes: readonly SecuritySchemeModel[]): string[] {
  const out: string[] = [];
  // every scheme of every alternative (D434 every query API key of every security alternative allowed): Vonage's `[{apiKey, apiSecret}, {apiKey, apiSig}]` sends `api_secret`
  // or `sig` in the query beside `api_key`, and only the first of each alternative was allowed
  for (const alternative of op.security)
    for (const requirement of alternative) {
      const scheme = schemes.find((s) => s.name === requirement.scheme);
      if (scheme?.type === 'apiKey' && scheme.in === 'query' && scheme.parameterName !== undefined && !out.includes(scheme.parameterName))
        out.push(scheme.parameterName);
    }
  return out;
}

/**
 * D196: the standalone ESM module Ajv writes, as the body of one function: `require` becomes its parameter (the module's
 * `createRequire` lines go), each `export const name = validateN;` becomes a member of the object the body returns.
 * Anything else ESM-only in the code (another import or export, `import.meta`) is a generator bug, refused here.
 */
export function standaloneAsFunctionBody(module: string): { body: string; names: string[] } {
  const names: string[] = [];
  const members: string[] = [];
  // An alias (`export const b = a;`, D155's shared validator) names an earlier export, which is no binding in the body.
  const targets = new Map<string, string>();
  const body = module
    .replace(/^import \{ createRequire \} from "node:module";\nconst require = createRequire\(import\.meta\.url\);\n/m, '')
    .replace(/^export const ([A-Za-z_$][\w$]*) = ([A-Za-z_$][\w$]*);\n?/gm, (_line, name: string, value: string) => {
      const target = targets.get(value) ?? value;
      targets.set(name, target);
      names.push(name);
      members.push(name === target ? name : `${name}: ${target}`);
      return '';
    });
  const leftover = /^(?:import|export)\b|\bimport\.meta\b/m.exec(body);
  if (leftover !== null) {
    throw new Error(
      `request validators: Ajv's standalone code has ESM syntax D196 does not rewrite, at "${body.slice(leftover.index, leftover.index + 60)}"`,
    );
  }
  return { body: `${body.replace(/\s+$/, '')}\nreturn { ${members.join(', ')} };`, names };
}

/**
 * Text as the contents of a template literal: `\`, the backtick and `${` escaped, and a carriage return (a template
 * literal reads CR LF and a lone CR as LF); line feeds kept as they are.
 */
export const templateLiteralText = (text: string): string =>
  text.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${').replace(/\r/g, '\\r');

export const serverRequestValidatorsEmitter: Emitter = {
  name: 'server/request-validators',
  target: 'server',
  emit(ctx: EmitContext): GeneratedFile[] {
    // D442: reused after an edit no operation's request can reach (the operations' request parts, their security and
    // every schema those reach are the key)
    const inputs = requestValidatorInputs(ctx.model);
    const { body, names, operations, notValidated } = ctx.memo(
      'server/request-validators',
      () => reachableDigest(inputs, [inputs.operations, inputs.securitySchemes, inputs.openapiVersion, inputs.source]),
      () => {
        const compiled = compileRequestValidators({ model: inputs });
        return { ...compiled, ...standaloneAsFunctionBody(compiled.code) };
      },
    );
    for (const part of notValidated) {
      ctx.warn?.({
        pointer: `${openapiFileOf(ctx.model.source)}${part.pointer}`,
        problem: `the request validator ${part.validator} is not generated: Ajv cannot compile its schema (${part.reason}); the scaffold does not validate that part of the request and says so at start-up.`,
        fix: 'change the schema so Ajv compiles it (the construct Ajv names), or validate that part in the handler.',
      });
    }
    // D160: one TypeScript module (a consumer building with plain tsc gets no .js copied). D196: the Ajv code is the
    // text of one function, made a function once at import, so tsc and editors read one string instead of parsing
    // megabytes of untyped JavaScript (a large share of a strict tsc's memory: docs/benchmarks.md#generated-validator-size).
    return [
      {
        path: `${ctx.out.server}/request-validators.gen.ts`,
        contents: ctx.templates.render('server/request-validators', {
          header: ctx.header,
          source: templateLiteralText(body),
          names,
          operations,
          runtimeModule: runtimeSpecifier(ctx, 'server', ctx.out.server, 'request-validation.js'),
        }),
      },
    ];
  },
};
