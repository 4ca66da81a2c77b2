/**
 * Server request validators, precompiled: for every operation, Ajv standalone functions for the query, the declared
 * headers (lower-cased), the path parameters and each request body media type, plus the rules the runtime applies
 * before them (array/object parameter styles, reserved characters, unknown and empty query parameters, the body
 * media types). The schemas, Ajv options and formats mirror what express-openapi-validator 5.6 compiles at boot from
 * the same document, so the runtime (packages/server/src/runtime/request-validation.ts) can answer exactly as it does
 * without loading it: parameters with `coerceTypes`, bodies without, `useDefaults`, `allErrors`, ajv-formats "fast".
 */
import AjvModule from 'ajv';
import { fastFormats } from 'ajv-formats/dist/formats.js';
import { RefResolver } from '../model/build.js';
import type { ApiModel, OperationModel, ParameterModel, SecuritySchemeModel } from '../model/types.js';
import { addFormats, createStandaloneAjv, isObj, standaloneModule, toAjvSchema, type StandaloneAjv } from './ajv-standalone.js';
import type { EmitContext, Emitter, GeneratedFile } from './context.js';
import { importPath } from './context.js';
import { operationTypeNames } from './names.js';

type Obj = Record<string, unknown>;

const PARAMS_ROOT = 'request-params.json';
const BODY_ROOT = 'request-body.json';
const RESERVED_DEF_PREFIX = '__req_';
/** Annotations that never change a validation result: left out of the generated code. */
const ANNOTATIONS = new Set(['description', 'title', '$comment', 'deprecated', 'nullable-without-type']);

/** The request-side Ajv options of express-openapi-validator 5.6 (`AjvOptions.request` with `validateRequests: { allErrors: true }`). */
const REQUEST_AJV_OPTIONS = {
  strict: false,
  strictNumbers: true,
  strictTuples: true,
  allowUnionTypes: false,
  validateSchema: false,
  useDefaults: true,
  allErrors: true,
  validateFormats: true,
} as const;

/** Its format table: its own formats, then ajv-formats "fast" over them, plus `media-range` (accepted) for 3.1. */
function requestFormats(openapiVersion: string): Record<string, unknown> {
  const table: Record<string, unknown> = { ...(fastFormats as Record<string, unknown>) };
  if (openapiVersion.startsWith('3.1')) table['media-range'] = true;
  return table;
}

/** Array delimiters by parameter style (non-exploded arrays). */
const ARRAY_DELIMITER: Record<string, string> = { simple: ',', form: ',', spaceDelimited: ' ', pipeDelimited: '|' };

/** How the runtime reshapes one parameter before validation (see request-validation.ts `ParameterRule`). */
export interface ParameterRuleView {
  name: string;
  in: 'query' | 'header' | 'path' | 'cookie';
  kind: 'none' | 'json' | 'wrap' | 'split' | 'badStyle' | 'formExplode' | 'deepObject' | 'formObject';
  delimiter?: string;
  style?: string;
  properties?: string[];
  arrayProperties?: string[];
  deepDefault?: unknown;
  reserved?: 'whole' | 'comma';
}

interface OperationView {
  key: string;
  fields: { name: string; value: string }[];
}

function schemaTypeOf(schema: unknown): unknown {
  return isObj(schema) ? schema.type : undefined;
}

/** express-openapi-validator's `isObjectOrXOf`. */
function isObjectOrXOf(schema: unknown): boolean {
  if (!isObj(schema)) return false;
  if (schema.$ref !== undefined) return true;
  if (schema.type === 'object') return true;
  return ['allOf', 'oneOf', 'anyOf'].some((k) => Array.isArray(schema[k]) && (schema[k] as unknown[]).some(isObjectOrXOf));
}

/** Resolves `#/components/schemas/...` refs against the model's schemas (the only refs left in bundled schemas). */
export function modelSchemaResolver(model: Pick<ApiModel, 'schemas'>): RefResolver {
  return new RefResolver({ components: { schemas: Object.fromEntries(model.schemas.map((s) => [s.name, s.schema])) } });
}

class RuleBuilder {
  constructor(private readonly resolver: RefResolver) {}

  /** The parameter's schema as validated: a `$ref` schema is replaced by its target (one level), so its `default` applies. */
  parameterSchema(p: ParameterModel): unknown {
    let schema: unknown = p.schema;
    if (isObj(schema) && typeof schema.$ref === 'string') schema = this.resolver.get(schema.$ref);
    return schema ?? {};
  }

  rule(p: ParameterModel, schema: unknown): ParameterRuleView {
    const location = p.in;
    const name = location === 'header' ? p.name.toLowerCase() : p.name;
    const style = p.styleDeclared ? p.style : location === 'path' ? 'simple' : location === 'query' ? 'form' : undefined;
    const explode = p.explodeDeclared ? p.explode : location === 'path' ? false : location === 'query' ? true : undefined;
    const rule: ParameterRuleView = { name, in: location, kind: 'none' };
    if (location === 'query' && !p.allowReserved) rule.reserved = explode ? 'whole' : 'comma';
    const type = schemaTypeOf(schema);
    if (p.content !== undefined) {
      if (/^[^/]+\/([^;+]*\+)?json\b|^[^/]+\/json\b/i.test(p.content.mediaType.split(';')[0]!.trim())) rule.kind = 'json';
    } else if (location === 'query' && isObjectOrXOf(schema)) {
      const s = schema as Obj;
      if (style === 'form' && explode) {
        rule.kind = 'formExplode';
        const props = this.explodedProperties(s);
        rule.properties = props;
        const ownProps = isObj(s.properties) ? s.properties : {};
        rule.arrayProperties = props.filter((k) => isObj(ownProps[k]) && (ownProps[k] as Obj).type === 'array');
      } else if (style === 'deepObject') {
        rule.kind = 'deepObject';
        rule.deepDefault = this.deepObjectDefault(s);
      } else if (style === 'form' && !explode && s.type === 'object') {
        rule.kind = 'formObject';
      } else {
        rule.kind = 'json';
      }
    } else if (type === 'array' && !explode) {
      const delimiter = style === undefined ? undefined : ARRAY_DELIMITER[style];
      if (delimiter === undefined) {
        rule.kind = 'badStyle';
        rule.style = String(style);
      } else {
        rule.kind = 'split';
        rule.delimiter = delimiter;
      }
    } else if (type === 'array' && explode) {
      rule.kind = 'wrap';
    }
    return rule;
  }

  private explodedProperties(schema: Obj): string[] {
    if (['allOf', 'oneOf', 'anyOf'].some((k) => schema[k] !== undefined)) {
      const out: string[] = [];
      for (const key of ['allOf', 'oneOf', 'anyOf']) {
        if (!Array.isArray(schema[key])) continue;
        for (const member of schema[key] as unknown[]) {
          if (isObj(member) && member.type === 'object' && isObj(member.properties)) out.push(...Object.keys(member.properties));
        }
      }
      return out;
    }
    return schema.type === 'object' && isObj(schema.properties) ? Object.keys(schema.properties) : [];
  }

  private deepObjectDefault(schema: Obj): unknown {
    if (schema.default !== undefined) return schema.default;
    if (isObj(schema.properties)) {
      let value: Obj | undefined;
      for (const [k, v] of Object.entries(schema.properties)) {
        value ??= {};
        if (isObj(v) && v.default) value[k] = v.default;
      }
      return value;
    }
    let value: unknown;
    for (const key of ['allOf', 'oneOf', 'anyOf']) {
      if (!Array.isArray(schema[key])) continue;
      for (const member of schema[key] as unknown[]) {
        const target = isObj(member) && typeof member.$ref === 'string' ? this.resolver.get(member.$ref) : member;
        if (value === undefined && isObj(target)) value = target.default;
      }
    }
    return value;
  }
}

function js(value: unknown): string {
  return JSON.stringify(value);
}

interface Compiled {
  code: string;
  operations: OperationView[];
}

/** Builds the two `$defs` roots (parameters, coerced; bodies, not coerced), compiles them and lays out the table. */
export function compileRequestValidators(ctx: Pick<EmitContext, 'model'>): Compiled {
  const { model } = ctx;
  const resolver = modelSchemaResolver(model);
  const rules = new RuleBuilder(resolver);
  const names = operationTypeNames(model.operations);

  const paramDefs: Obj = {};
  const bodyDefs: Obj = {};
  for (const { name, schema } of model.schemas) {
    if (name.startsWith(RESERVED_DEF_PREFIX)) throw new Error(`Schema name ${name} is reserved by the request-validators emitter`);
    paramDefs[name] = toAjvSchema(schema, PARAMS_ROOT, ANNOTATIONS);
    bodyDefs[name] = toAjvSchema(schema, BODY_ROOT, ANNOTATIONS);
  }

  const paramExports: Record<string, string> = {};
  const bodyExports: Record<string, string> = {};
  const operations: OperationView[] = [];
  for (const op of model.operations) {
    const typeName = names.get(op.operationId)!;
    const fields: OperationView['fields'] = [];
    const parameterRules: ParameterRuleView[] = [];
    const groups: Record<'query' | 'headers' | 'params', { properties: Obj; required: string[] } | undefined> = { query: undefined, headers: undefined, params: undefined };
    let allowUnknownQuery = op.extensions['x-eov-allow-unknown-query-parameters'] ?? op.extensions['x-allow-unknown-query-parameters'];
    const allowEmpty: string[] = [];
    for (const p of op.parameterList) {
      const location = p.in;
      const schema = rules.parameterSchema(p);
      const rule = rules.rule(p, schema);
      parameterRules.push(rule);
      if (location === 'cookie') continue; // cookies are never parsed by the scaffold, so never validated
      const group = location === 'query' ? 'query' : location === 'header' ? 'headers' : 'params';
      const target = (groups[group] ??= { properties: {}, required: [] });
      target.properties[rule.name] = toAjvSchema(schema, PARAMS_ROOT, ANNOTATIONS);
      if (p.required) target.required.push(rule.name);
      if (location === 'query' && p.allowEmptyValue) allowEmpty.push(rule.name);
      if (location === 'query' && isObj(schema) && schema.type === 'object' && schema.additionalProperties) allowUnknownQuery ??= true;
    }
    for (const [group, suffix] of [['query', 'Query'], ['headers', 'Headers'], ['params', 'Params']] as const) {
      const g = groups[group];
      if (g === undefined) continue;
      const key = `${RESERVED_DEF_PREFIX}${typeName}_${group}`;
      paramDefs[key] = { type: 'object', properties: g.properties, ...(g.required.length > 0 ? { required: g.required } : {}) };
      const fn = `validate${typeName}${suffix}`;
      paramExports[fn] = `${PARAMS_ROOT}#/$defs/${key}`;
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
        const key = `${RESERVED_DEF_PREFIX}${typeName}_body${index}`;
        bodyDefs[key] = { properties: { body: binary ? {} : toAjvSchema(schema, BODY_ROOT, ANNOTATIONS) }, ...(required ? { required: ['body'] } : {}) };
        const fn = `validate${typeName}Body${index}`;
        bodyExports[fn] = `${BODY_ROOT}#/$defs/${key}`;
        const props = isObj(schema) && isObj(schema.properties) ? schema.properties : {};
        const jsonFields = mediaModel.mediaType !== 'multipart/form-data' ? [] : Object.keys(props).filter((k) => isObj(props[k]) && ['array', 'object'].includes((props[k] as Obj).type as string));
        media.push(`{ mediaType: ${js(mediaModel.mediaType)}, validate: ${fn}${jsonFields.length > 0 ? `, jsonFields: ${js(jsonFields)}` : ''} }`);
      });
      fields.push({ name: 'body', value: `{ required: ${requestBody.required ? 'true' : 'false'}, content: [${media.join(', ')}] }` });
      if (requestBody.content.some((c) => c.mediaType === 'multipart/form-data')) fields.push({ name: 'multipart', value: 'true' });
    }
    operations.push({ key: js(op.operationId), fields });
  }

  const options = { ...REQUEST_AJV_OPTIONS, code: { formats: AjvModule._`formats` } };
  const ajv: StandaloneAjv = createStandaloneAjv(model.openapiVersion, { ...options, coerceTypes: true });
  addFormats(ajv, requestFormats(model.openapiVersion), 'runtime');
  ajv.addSchema({ $id: PARAMS_ROOT, $defs: paramDefs });
  ajv.addSchema({ $id: BODY_ROOT, $defs: bodyDefs });
  // One instance (one standalone module), two coercion modes: compile every parameter validator with `coerceTypes`,
  // then every body validator without. The two roots share no schema, so no compiled function is reused across modes.
  const opts = ajv.opts as { coerceTypes?: boolean };
  for (const ref of Object.values(paramExports)) ajv.getSchema(ref);
  opts.coerceTypes = false;
  for (const ref of Object.values(bodyExports)) ajv.getSchema(ref);
  // Non-regex formats (int32, byte, ...) are read from ajv-formats at run time, the very table they were compiled with.
  const code = standaloneModule(ajv, { ...paramExports, ...bodyExports }, (source) =>
    /\bformats(\.|\[)/.test(source) ? ['const formats = require("ajv-formats/dist/formats").fastFormats;'] : [],
  );
  return { code, operations };
}

/** Names of apiKey-in-query security schemes of the operation (allowed as query parameters). */
function securityQueryParams(op: OperationModel, schemes: readonly SecuritySchemeModel[]): string[] {
  const out: string[] = [];
  for (const alternative of op.security) {
    const first = alternative[0];
    if (first === undefined) continue;
    const scheme = schemes.find((s) => s.name === first.scheme);
    if (scheme?.type === 'apiKey' && scheme.in === 'query' && scheme.parameterName !== undefined) out.push(scheme.parameterName);
  }
  return out;
}

export const serverRequestValidatorsEmitter: Emitter = {
  name: 'server/request-validators',
  target: 'server',
  emit(ctx: EmitContext): GeneratedFile[] {
    const { code, operations } = compileRequestValidators(ctx);
    return [
      {
        path: `${ctx.out.server}/request-validators.gen.ts`,
        contents: ctx.templates.render('server/request-validators', {
          header: ctx.header,
          runtimeModule: importPath(ctx.out.server, `${ctx.runtime.server}/request-validation.js`),
          code: code.replace(/\s+$/, ''),
          operations,
        }),
      },
    ];
  },
};
