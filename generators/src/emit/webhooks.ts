import { fastFormats } from 'ajv-formats/dist/formats.js';
import type { CompiledEventValidator } from '@paygate/webhooks/runtime/event-validation.js';
import type { ApiModel, JsonSchema, WebhookEventModel } from '../model/types.js';
import { sortedEntries } from '../util/sorted.js';
import { openapiFileOf, pointerToken, UnsupportedSpecError } from '../parse/refusal.js';
import {
  addFormats,
  compileOrRefuse,
  createStandaloneAjv,
  standaloneModule,
  toAjvSchema as toAjvSchemaIn,
  type LocatedSchema,
  type StandaloneAjv,
} from './ajv-standalone.js';
import type { EmitContext, Emitter, GeneratedFile } from './context.js';
import { contractSpecifier, runtimeSpecifier, withHeader } from './context.js';

type Obj = Record<string, unknown>;

const ROOT_ID = 'webhooks.json';

/** Rewrites `#/components/schemas/X` refs to `webhooks.json#/$defs/X` and drops OpenAPI-only annotation keywords. */
export function toAjvSchema(schema: unknown): unknown {
  return toAjvSchemaIn(schema, ROOT_ID);
}

function eventSchemaKey(event: WebhookEventModel): string {
  return `__event_${event.typeName}`;
}

/** Where the spec declares an event's payload, for a refusal: its first OpenAPI operation, else its AsyncAPI message. */
function eventPointer(e: WebhookEventModel): string {
  const origin = e.origins[0];
  if (origin === undefined || origin.kind === 'asyncapi') return `AsyncAPI message ${e.asyncapiMessage ?? e.eventType}`;
  return `${origin.pointer}/requestBody/content/${pointerToken(e.mediaType)}/schema`;
}

/** The events' Ajv: every component schema and every event payload under one `$defs` root, and where each is declared. */
function eventsAjv(
  openapiVersion: string,
  schemas: Record<string, JsonSchema>,
  events: readonly WebhookEventModel[],
  file: string,
): { createAjv: () => StandaloneAjv; candidates: LocatedSchema[]; refOf: (event: WebhookEventModel) => string } {
  const defs: Obj = {};
  for (const [name, schema] of sortedEntries(schemas)) defs[name] = toAjvSchema(schema);
  for (const event of events) {
    const key = eventSchemaKey(event);
    if (key in defs) {
      throw new UnsupportedSpecError(
        file,
        `#/components/schemas/${pointerToken(key)}`,
        `schema names starting with __event_ are reserved by the webhook emitter.`,
        'rename the schema (and its $refs).',
      );
    }
    defs[key] = toAjvSchema(event.schema);
  }
  const createAjv = (): StandaloneAjv => {
    // `unicode: false`: lengths in UTF-16 code units, like the rest of Paygate. `validateSchema: 'log'` (and no
    // logger): a schema the meta-schema refuses (real-world specs: draft 2019 keywords, duplicate `required` items)
    // still compiles; what Ajv truly cannot compile is refused with its location by compileOrRefuse.
    const ajv = createStandaloneAjv(openapiVersion, { allErrors: true, strict: false, unicode: false, validateSchema: 'log' });
    // Formats inline as regular expressions, so the generated code needs no runtime import of ajv-formats.
    addFormats(ajv, fastFormats as Record<string, unknown>, 'accept');
    ajv.addSchema({ $id: ROOT_ID, $defs: defs });
    return ajv;
  };
  const refOf = (event: WebhookEventModel) => `${ROOT_ID}#/$defs/${eventSchemaKey(event)}`;
  const candidates: LocatedSchema[] = [
    ...Object.keys(schemas)
      .sort()
      .map((name) => ({ ref: `${ROOT_ID}#/$defs/${name}`, pointer: `#/components/schemas/${pointerToken(name)}` })),
    ...events.map((e) => ({ ref: refOf(e), pointer: eventPointer(e) })),
  ];
  return { createAjv, candidates, refOf };
}

/**
 * The names the webhooks index declares itself: an event whose type name would make its validator one of them (a
 * callback called `event` gives `Event`: sakari.io in the corpus run) gets `Payload` after it instead (D406 event validator names avoid index names).
 */
const INDEX_NAMES: ReadonlySet<string> = new Set(['validateEvent', 'validateWebhookEvent']);

/** The name of an event's precompiled validator in validators.gen.ts and the index. */
export function validatorName(typeName: string): string {
  const name = `validate${typeName}`;
  return INDEX_NAMES.has(name) ? `${name}Payload` : name;
}

/** Ajv standalone (ESM) module exporting one validate function per event: no schema compilation at import. */
export function compileValidators(
  openapiVersion: string,
  schemas: Record<string, JsonSchema>,
  events: readonly WebhookEventModel[],
  file = 'the OpenAPI document',
): string {
  const { createAjv, candidates, refOf } = eventsAjv(openapiVersion, schemas, events, file);
  const exports: Record<string, string> = {};
  for (const event of events) exports[validatorName(event.typeName)] = refOf(event);
  const ajv = createAjv();
  return compileOrRefuse(() => standaloneModule(ajv, exports), createAjv, candidates, file, 'webhook event validators');
}

/**
 * The same validators compiled in memory, by event name: for tools that validate a spec's events without generating
 * code (`paygate listen --input`, D214).
 */
export function eventValidatorsInMemory(
  model: Pick<ApiModel, 'openapiVersion' | 'schemas' | 'webhooks' | 'source'>,
): Record<string, CompiledEventValidator> {
  const schemas = Object.fromEntries(model.schemas.map((s) => [s.name, s.schema]));
  const { createAjv, candidates, refOf } = eventsAjv(model.openapiVersion, schemas, model.webhooks, openapiFileOf(model.source));
  const ajv = createAjv();
  return compileOrRefuse(
    () => Object.fromEntries(model.webhooks.map((e) => [e.eventType, ajv.getSchema(refOf(e)) as unknown as CompiledEventValidator])),
    createAjv,
    candidates,
    openapiFileOf(model.source),
    'webhook event validators',
  );
}

function validatorViews(events: readonly WebhookEventModel[]): { eventType: string; typeName: string; validator: string }[] {
  return events.map((e) => ({ eventType: JSON.stringify(e.eventType), typeName: e.typeName, validator: validatorName(e.typeName) }));
}

export const webhooksEmitter: Emitter = {
  name: 'webhooks',
  target: 'webhooks',
  emit(ctx: EmitContext): GeneratedFile[] {
    const { model } = ctx;
    const dir = ctx.out.webhooks;
    const schemas = Object.fromEntries(model.schemas.map((s) => [s.name, s.schema]));
    const validators = compileValidators(model.openapiVersion, schemas, model.webhooks, openapiFileOf(model.source));
    const view = {
      header: ctx.header,
      contract: contractSpecifier(ctx, dir),
      runtime: runtimeSpecifier(ctx, 'webhooks', dir),
      discriminator: model.webhookDiscriminator === undefined ? null : JSON.stringify(model.webhookDiscriminator),
      events: validatorViews(model.webhooks),
    };
    return [
      {
        path: `${dir}/validators.gen.ts`,
        contents: withHeader(ctx.header, validators, [
          '// Precompiled Ajv standalone validators (one per event type): nothing is compiled at import time.',
          // D463: Ajv's module alone, no table of ours (that is ./index.ts, type-checked); kept as code, not a string for
          // `new Function` as the request validators are, so that a webhook receiver never needs eval (CSP, edge runtimes)
          "// @ts-nocheck -- Ajv's generated JavaScript only; the typed surface is ./index.ts (D463)",
          '/* eslint-disable */',
        ]),
      },
      { path: `${dir}/index.ts`, contents: ctx.templates.render('webhooks/index', view) },
    ];
  },
};
