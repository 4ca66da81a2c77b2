/**
 * The contract package (`@paygate/contract`): the one type layer, the embedded API document, the route table, the
 * error codes and enums as constants, the webhook event types, and a barrel. Every other target imports these.
 */
import type { ApiModel, OperationModel, SecuritySchemeModel, WebhookEventModel } from '../model/types.js';
import { sortKeysDeep } from '../util/sorted.js';
import type { DocumentEmitContext, DocumentEmitter, EmitContext, Emitter } from './context.js';
import { runtimeSpecifier, withHeader } from './context.js';
import { runtimeDocument } from './runtime-document.js';

/** Route table entry as embedded in operations.gen.ts (plain JSON). */
export interface RouteView {
  operationId: string;
  method: string;
  path: string;
  expressPath: string;
  tags: string[];
  headerParameters: string[];
  requestMediaTypes: string[];
  requestBodyRequired: boolean;
  fileFields: { name: string; multiple: boolean }[];
  security: { scheme: string; scopes: string[] }[][];
  responses: Record<string, string[]>;
}

export function routeViews(operations: readonly OperationModel[]): RouteView[] {
  return operations.map((op) => ({
    operationId: op.operationId,
    method: op.method,
    path: op.path,
    expressPath: op.expressPath,
    tags: op.tags,
    headerParameters: op.parameters.header.map((p) => p.name.toLowerCase()),
    requestMediaTypes: op.requestBody?.content.map((c) => c.mediaType) ?? [],
    requestBodyRequired: op.requestBody?.required ?? false,
    fileFields: (op.requestBody?.content ?? []).flatMap((c) =>
      (c.fields ?? []).filter((f) => f.kind === 'file' || f.kind === 'files').map((f) => ({ name: f.name, multiple: f.kind === 'files' })),
    ),
    security: op.security,
    responses: Object.fromEntries(op.responses.map((r) => [r.status, r.content.map((c) => c.mediaType)])),
  }));
}

/** The header whose declaration makes an operation idempotent (IETF `Idempotency-Key`). */
export const IDEMPOTENCY_HEADER = 'idempotency-key';

export function idempotentOperationIds(operations: readonly OperationModel[]): string[] {
  return operations
    .filter((op) => op.parameters.header.some((p) => p.name.toLowerCase() === IDEMPOTENCY_HEADER))
    .map((op) => op.operationId);
}

function securitySchemeView(schemes: readonly SecuritySchemeModel[]): Record<string, object> {
  return Object.fromEntries(
    schemes.map((s) => [s.name, { type: s.type, in: s.in ?? null, name: s.parameterName ?? null, scheme: s.scheme ?? null }]),
  );
}

/** Names exported by the other contract files: a spec enum of the same name is left to them. */
const RESERVED_EXPORTS = new Set([
  'ErrorCode',
  'ERROR_STATUS',
  'WebhookEvent',
  'WebhookEventType',
  'WebhookEventMap',
  'WebhookEventName',
  'WEBHOOK_EVENT_TYPES',
  'WEBHOOK_EVENT_NAMES',
  'WEBHOOK_EVENT_DISCRIMINATOR',
  'OperationId',
  'OperationTypes',
]);

export function enumViews(model: Pick<ApiModel, 'enums'>): { name: string; values: unknown[]; doc: string[] }[] {
  return model.enums
    .filter((e) => !RESERVED_EXPORTS.has(e.name) && /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(e.name))
    .map((e) => ({ name: e.name, values: e.values, doc: [e.description ?? '', `From \`${e.pointers.join('`, `')}\`.`] }));
}

export function errorStatusView(model: Pick<ApiModel, 'errorCodes' | 'errorCatalogue'>): Record<string, number> | null {
  const status = new Map(model.errorCatalogue.filter((e) => e.status !== undefined).map((e) => [e.code, e.status!]));
  if (model.errorCodes.length === 0 || model.errorCodes.some((c) => !status.has(c))) return null;
  return Object.fromEntries(model.errorCodes.map((c) => [c, status.get(c)!]));
}

export interface WebhookEventView {
  eventType: string;
  typeName: string;
  typeRef: string;
  doc: string[];
}

/** Where an event is declared, for its doc comment: `OpenAPI webhooks`, `callback \`x\` of \`createOrder\``, `AsyncAPI message`. */
function originLabel(e: WebhookEventModel): string {
  const labels = e.origins.map((o) =>
    o.kind === 'webhook'
      ? 'OpenAPI webhooks'
      : o.kind === 'callback'
        ? `callback \`${o.name}\` of \`${o.operationId}\``
        : 'AsyncAPI message',
  );
  // An event merged from a webhook and its AsyncAPI message reads as its OpenAPI declaration (as before callbacks, D210).
  const shown = e.source === 'openapi' ? labels.filter((l) => l !== 'AsyncAPI message') : labels;
  return [...new Set(shown)].join('; ');
}

export function eventViews(events: readonly WebhookEventModel[]): WebhookEventView[] {
  return events.map((e) => ({
    eventType: JSON.stringify(e.eventType),
    typeName: e.typeName,
    typeRef: e.typeRef ?? `components["schemas"][${JSON.stringify(e.typeName)}]`,
    doc: [
      e.summary ?? '',
      e.description ?? '',
      `${e.discriminatorValue === undefined ? 'Event' : 'Event type'} \`${e.eventType}\` (${originLabel(e)}).`,
    ],
  }));
}

/** The events emitters' shared view: every event by name, and the members of the discriminated union (D212, "Events known by discriminator or by name"). */
export function eventsView(model: Pick<ApiModel, 'webhooks' | 'webhookDiscriminator'>): {
  discriminator: string | null;
  events: WebhookEventView[];
  union: WebhookEventView[];
} {
  const discriminator = model.webhookDiscriminator === undefined ? null : JSON.stringify(model.webhookDiscriminator);
  return {
    discriminator,
    events: eventViews(model.webhooks),
    union: discriminator === null ? [] : eventViews(model.webhooks.filter((e) => e.discriminatorValue !== undefined)),
  };
}

export const contractTypesEmitter: Emitter = {
  name: 'contract/types',
  target: 'contract',
  emit: async (ctx: EmitContext) => [
    {
      path: `${ctx.out.contract}/types.gen.ts`,
      contents: withHeader(ctx.header, await ctx.typeLayer(), [
        '// Type layer: openapi-typescript 7 output (the bundled document, plus the payloads of AsyncAPI-only events).',
      ]),
    },
  ],
};

export const contractApiDocumentEmitter: DocumentEmitter = {
  name: 'contract/api-document',
  target: 'contract',
  readsDocument: true,
  emit: (ctx: DocumentEmitContext) => [
    {
      path: `${ctx.out.contract}/api-document.gen.ts`,
      contents: ctx.templates.render('contract/api-document', {
        header: ctx.header,
        contractTypes: runtimeSpecifier(ctx, 'contract', ctx.out.contract, 'types.js'),
        title: ctx.model.title,
        version: ctx.model.version,
        // A JSON string literal: V8 parses JSON.parse(...) of one string faster than an equivalent object literal,
        // and tsc does not type-check a multi-megabyte literal. Single-quoted (D156 runtime document as one single-quoted string): JSON's every `"` would
        // otherwise be escaped (docs/benchmarks.md#generated-contract-size).
        // D158: the runtime document (what createApp and the runtimes read), not the whole bundle.
        documentJson: singleQuoted(JSON.stringify(sortKeysDeep(runtimeDocument(ctx.document)))),
      }),
    },
  ],
};

/**
 * `text` as a single-quoted JS string literal: only `\\`, `'` and the two line terminators JSON leaves raw (U+2028,
 * U+2029: valid in ES2019 strings, escaped anyway for older tools) are escaped.
 */
export function singleQuoted(text: string): string {
  return `'${text.replace(/[\\'\u2028\u2029]/g, (c) => (c === '\\' ? '\\\\' : c === "'" ? "\\'" : `\\u${c.charCodeAt(0).toString(16)}`))}'`;
}

export const contractOperationsEmitter: Emitter = {
  name: 'contract/operations',
  target: 'contract',
  emit: (ctx: EmitContext) => [
    {
      path: `${ctx.out.contract}/operations.gen.ts`,
      contents: ctx.templates.render('contract/operations', {
        header: ctx.header,
        contractTypes: runtimeSpecifier(ctx, 'contract', ctx.out.contract, 'types.js'),
        // D161: one route per line (pretty-printed, half the table was indentation and line breaks).
        // D194: each a JSON text in a single-quoted string, parsed at import (an `as const` object literal table cost a
        // strict tsc much memory on Stripe's routes: docs/benchmarks.md#generated-contract-size), and the operation ids
        // written out as a union.
        routes: routeViews(ctx.model.operations).map((r) => singleQuoted(JSON.stringify(r))),
        operationIds: ctx.model.operations.map((op) => JSON.stringify(op.operationId)),
        securitySchemes: securitySchemeView(ctx.model.securitySchemes),
        securitySchemeNames:
          ctx.model.securitySchemes.length === 0 ? 'never' : ctx.model.securitySchemes.map((s) => JSON.stringify(s.name)).join(' | '),
        idempotent: idempotentOperationIds(ctx.model.operations),
      }),
    },
  ],
};

export const contractEnumsEmitter: Emitter = {
  name: 'contract/enums',
  target: 'contract',
  emit: (ctx: EmitContext) => [
    {
      path: `${ctx.out.contract}/enums.gen.ts`,
      contents: ctx.templates.render('contract/enums', {
        header: ctx.header,
        errorCodes: ctx.model.errorCodes,
        errorStatus: errorStatusView(ctx.model),
        enums: enumViews(ctx.model),
      }),
    },
  ],
};

export const contractEventsEmitter: Emitter = {
  name: 'contract/events',
  target: 'contract',
  emit: (ctx: EmitContext) => [
    {
      path: `${ctx.out.contract}/events.gen.ts`,
      contents: ctx.templates.render('contract/events', {
        header: ctx.header,
        ...eventsView(ctx.model),
        // Only the names some event's type uses: an unused import fails users' noUnusedLocals (D132 noUnusedLocals and noUnusedParameters everywhere).
        typeImports: ['components', 'webhooks']
          .filter((name) => eventViews(ctx.model.webhooks).some((e) => e.typeRef.includes(`${name}[`)))
          .join(', '),
      }),
    },
  ],
};

export const contractIndexEmitter: Emitter = {
  name: 'contract/index',
  target: 'contract',
  emit: async (ctx: EmitContext) => {
    const types = await ctx.typeLayer();
    const declared = (name: string) => new RegExp(`^export (interface|type) ${name.replace('$', '\\$')}\\b`, 'm').test(types);
    const typeExports = ['paths', 'webhooks', 'components'].filter(declared);
    if (declared('operations')) typeExports.push('operations as OperationTypes');
    return [
      {
        path: `${ctx.out.contract}/index.ts`,
        contents: ctx.templates.render('contract/index', { header: ctx.header, typeExports: typeExports.join(', ') }),
      },
    ];
  },
};

export const CONTRACT_EMITTERS: readonly Emitter[] = [
  contractTypesEmitter,
  contractApiDocumentEmitter,
  contractOperationsEmitter,
  contractEnumsEmitter,
  contractEventsEmitter,
  contractIndexEmitter,
];
