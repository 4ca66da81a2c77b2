import Ajv2020 from 'ajv/dist/2020.js';
import AjvDraft7 from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import { fastFormats } from 'ajv-formats/dist/formats.js';
import type { JsonSchema, WebhookEventModel } from '../model/types.js';
import { sortedEntries } from '../util/sorted.js';
import type { EmitContext, Emitter, GeneratedFile } from './context.js';
import { createTypeLayer, withHeader } from './context.js';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);

const ROOT_ID = 'webhooks.json';
const DEFS_PREFIX = '#/components/schemas/';

/** Rewrites `#/components/schemas/X` refs to `<ROOT_ID>#/$defs/X` and drops OpenAPI-only annotation keywords. */
export function toAjvSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(toAjvSchema);
  if (!isObj(schema)) return schema;
  const out: Obj = {};
  for (const [key, value] of sortedEntries(schema)) {
    if (key === '$ref' && typeof value === 'string' && value.startsWith(DEFS_PREFIX)) {
      out.$ref = `${ROOT_ID}#/$defs/${value.slice(DEFS_PREFIX.length)}`;
    } else if (key === 'discriminator' || key === 'xml' || key === 'externalDocs' || key === 'example' || key === 'examples' || key.startsWith('x-')) {
      continue;
    } else {
      out[key] = toAjvSchema(value);
    }
  }
  return out;
}

function eventSchemaKey(event: WebhookEventModel): string {
  return `__event_${event.typeName}`;
}

/** Ajv standalone (ESM) module exporting one validate function per event: no schema compilation at import. */
export function compileValidators(openapiVersion: string, schemas: Record<string, JsonSchema>, events: readonly WebhookEventModel[]): string {
  const options = { code: { source: true, esm: true, lines: true }, allErrors: true, strict: false, unicode: false, logger: false } as const;
  const ajv = openapiVersion.startsWith('3.1') ? new Ajv2020.default(options) : new AjvDraft7.default(options);
  // Formats inline as regular expressions, so the generated code needs no runtime import of ajv-formats.
  for (const [name, format] of sortedEntries(fastFormats as Record<string, unknown>)) {
    if (format instanceof RegExp) ajv.addFormat(name, format);
    else if (isObj(format) && format.validate instanceof RegExp) ajv.addFormat(name, format.validate);
    else ajv.addFormat(name, true); // not expressible as a regex (numeric ranges, regex, byte): accepted as-is
  }
  const defs: Obj = {};
  for (const [name, schema] of sortedEntries(schemas)) defs[name] = toAjvSchema(schema);
  for (const event of events) {
    const key = eventSchemaKey(event);
    if (key in defs) throw new Error(`Schema name ${key} is reserved by the webhook emitter`);
    defs[key] = toAjvSchema(event.schema);
  }
  ajv.addSchema({ $id: ROOT_ID, $defs: defs });
  const exports: Record<string, string> = {};
  for (const event of events) exports[`validate${event.typeName}`] = `${ROOT_ID}#/$defs/${eventSchemaKey(event)}`;
  let code = standaloneCode.default(ajv, exports);
  const requires = [...code.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]!);
  if (requires.length > 0) {
    // Ajv runtime helpers (deep equality for object enums/const): resolved through the package's `ajv` dependency.
    code = code.replace(/^"use strict";/, `"use strict";\nimport { createRequire } from "node:module";\nconst require = createRequire(import.meta.url);`);
  }
  return code.replace(/\r\n?/g, '\n');
}

export interface WebhookEventView {
  eventType: string;
  typeName: string;
  typeRef: string;
  validator: string;
  doc: string[];
}

function eventViews(events: readonly WebhookEventModel[]): WebhookEventView[] {
  return events.map((e) => ({
    eventType: JSON.stringify(e.eventType),
    typeName: e.typeName,
    typeRef: e.typeRef ?? `components["schemas"][${JSON.stringify(e.typeName)}]`,
    validator: `validate${e.typeName}`,
    doc: [e.summary ?? '', e.description ?? '', `Event type \`${e.eventType}\` (${e.source === 'openapi' ? 'OpenAPI webhooks' : 'AsyncAPI message'}).`],
  }));
}

export const webhooksEmitter: Emitter = {
  name: 'webhooks',
  target: 'webhooks',
  async emit(ctx: EmitContext): Promise<GeneratedFile[]> {
    const { model, document } = ctx;
    const dir = ctx.out.webhooks;
    const components = isObj(document.components) ? document.components : {};
    const baseSchemas = (isObj(components.schemas) ? components.schemas : {}) as Record<string, JsonSchema>;
    const asyncOnly = model.webhooks.filter((e) => e.source === 'asyncapi');
    let types: string;
    if (asyncOnly.length === 0) {
      types = await ctx.typeLayer();
    } else {
      // AsyncAPI-only payloads become extra component schemas of a synthetic document for openapi-typescript.
      const extra: Record<string, JsonSchema> = {};
      for (const e of asyncOnly) {
        if (e.typeName in baseSchemas) throw new Error(`AsyncAPI event ${e.eventType}: schema name ${e.typeName} already exists in components`);
        extra[e.typeName] = e.schema;
      }
      types = await createTypeLayer({ ...document, components: { ...components, schemas: { ...baseSchemas, ...extra } } })();
    }
    const allSchemas: Record<string, JsonSchema> = { ...baseSchemas };
    const validators = compileValidators(model.openapiVersion, allSchemas, model.webhooks);
    const view = {
      header: ctx.header,
      discriminator: JSON.stringify(model.webhookDiscriminator),
      events: eventViews(model.webhooks),
      hasEvents: model.webhooks.length > 0,
      typeImports: ['components', ...(model.webhooks.some((e) => e.typeRef?.includes('webhooks[') === true) ? ['webhooks'] : [])].join(', '),
    };
    return [
      { path: `${dir}/types.gen.ts`, contents: withHeader(ctx.header, types, ['// Type layer: openapi-typescript 7 output (components, including AsyncAPI-only event payloads).']) },
      {
        path: `${dir}/validators.gen.ts`,
        contents: withHeader(ctx.header, validators, [
          '// Precompiled Ajv standalone validators (one per event type): nothing is compiled at import time.',
          '// @ts-nocheck -- generated JavaScript; the typed surface is ./index.ts',
          '/* eslint-disable */',
        ]),
      },
      { path: `${dir}/index.ts`, contents: ctx.templates.render('webhooks/index', view) },
    ];
  },
};
