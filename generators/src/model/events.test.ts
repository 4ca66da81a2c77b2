/**
 * Events from `webhooks` and `callbacks` (D210 webhooks and callbacks are events) with a detected or declared discriminator (D211 event discriminator declared or detected): real specs nobody
 * here wrote (Figma's callbacks, OpenAI's webhooks on `type`), Paygate's own, the two event fixtures, and small
 * documents for each rule.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadOpenApi } from '../parse/openapi.js';
import { buildModel } from './build.js';
import type { WebhookEventModel } from './types.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

async function modelOf(input: string) {
  const { document } = await loadOpenApi({ input, lint: 'skip', cwd: ROOT });
  return buildModel(document, { source: input });
}

const origins = (e: WebhookEventModel): string[] =>
  e.origins.map((o) => (o.kind === 'callback' ? `callback ${o.operationId}.${o.name}` : `${o.kind} ${o.name}`));

describe('events of real and fixture specs', () => {
  it.each([
    {
      spec: 'test/fixtures/realworld/figma/openapi.yaml',
      discriminator: 'event_type',
      events: [
        ['DEV_MODE_STATUS_UPDATE', 'DevModeStatusUpdateEvent', 'callback postWebhook.devModeStatusUpdate', 'union'],
        ['FILE_COMMENT', 'FileCommentEvent', 'callback postWebhook.fileComment', 'union'],
        ['FILE_DELETE', 'FileDeleteEvent', 'callback postWebhook.fileDelete', 'union'],
        ['FILE_UPDATE', 'FileUpdateEvent', 'callback postWebhook.fileUpdate', 'union'],
        ['FILE_VERSION_UPDATE', 'FileVersionUpdateEvent', 'callback postWebhook.fileVersionUpdate', 'union'],
        ['LIBRARY_PUBLISH', 'LibraryPublishEvent', 'callback postWebhook.libraryPublish', 'union'],
        ['PING', 'PingEvent', 'callback postWebhook.ping', 'union'],
      ],
    },
    {
      // `object: "event"` is on every payload but optional and one value for all: `type` names the events
      spec: 'test/fixtures/realworld/openai/openapi.json',
      discriminator: 'type',
      events: [
        ['batch.cancelled', 'BatchCancelledEvent', 'webhook batch_cancelled', 'union'],
        ['batch.completed', 'BatchCompletedEvent', 'webhook batch_completed', 'union'],
        ['batch.expired', 'BatchExpiredEvent', 'webhook batch_expired', 'union'],
        ['batch.failed', 'BatchFailedEvent', 'webhook batch_failed', 'union'],
        ['eval.run.canceled', 'EvalRunCanceledEvent', 'webhook eval_run_canceled', 'union'],
        ['eval.run.failed', 'EvalRunFailedEvent', 'webhook eval_run_failed', 'union'],
        ['eval.run.succeeded', 'EvalRunSucceededEvent', 'webhook eval_run_succeeded', 'union'],
        ['fine_tuning.job.cancelled', 'FineTuningJobCancelledEvent', 'webhook fine_tuning_job_cancelled', 'union'],
        ['fine_tuning.job.failed', 'FineTuningJobFailedEvent', 'webhook fine_tuning_job_failed', 'union'],
        ['fine_tuning.job.succeeded', 'FineTuningJobSucceededEvent', 'webhook fine_tuning_job_succeeded', 'union'],
        ['live.call.incoming', 'LiveCallIncomingEvent', 'webhook live_call_incoming', 'union'],
        ['realtime.call.incoming', 'RealtimeCallIncomingEvent', 'webhook realtime_call_incoming', 'union'],
        ['response.cancelled', 'ResponseCancelledEvent', 'webhook response_cancelled', 'union'],
        ['response.completed', 'ResponseCompletedEvent', 'webhook response_completed', 'union'],
        ['response.failed', 'ResponseFailedEvent', 'webhook response_failed', 'union'],
        ['response.incomplete', 'ResponseIncompleteEvent', 'webhook response_incomplete', 'union'],
      ],
    },
    {
      // Paygate: six webhooks on event_type, and the return-URL callback (a form, no event_type) known by name
      spec: 'openapi/openapi.yaml',
      discriminator: 'event_type',
      events: [
        ['MERCHANT_APPROVED', 'MerchantApprovedEvent', 'webhook MERCHANT_APPROVED', 'union'],
        ['PAYMENT_CAPTURED', 'PaymentCapturedEvent', 'webhook PAYMENT_CAPTURED', 'union'],
        ['PAYMENT_FAILED', 'PaymentFailedEvent', 'webhook PAYMENT_FAILED', 'union'],
        ['PAYMENT_SETTLED', 'PaymentSettledEvent', 'webhook PAYMENT_SETTLED', 'union'],
        ['REFUND_FAILED', 'RefundFailedEvent', 'webhook REFUND_FAILED', 'union'],
        ['REFUND_PROCESSED', 'RefundProcessedEvent', 'webhook REFUND_PROCESSED', 'union'],
        ['returnUrl', 'ReturnUrlEvent', 'callback createOrder.returnUrl', 'by name'],
      ],
    },
    {
      spec: 'test/fixtures/events31/openapi.yaml',
      discriminator: 'event',
      events: [
        ['createExport.status', 'CreateExportStatusEvent', 'callback createExport.status', 'by name'],
        ['createSubscription.status', 'CreateSubscriptionStatusEvent', 'callback createSubscription.status', 'by name'],
        ['heartbeat', 'HeartbeatEvent', 'callback createSubscription.heartbeat', 'by name'],
        // the enum `ParcelDeliveredEvent` (its `event` property) keeps its name
        [
          'parcel.delivered',
          'ParcelDeliveredEventPayload',
          'callback createExport.parcelDelivered,callback createSubscription.parcelDelivered',
          'union',
        ],
        ['parcel.lost', 'ParcelLostEvent', 'webhook parcel.lost', 'union'],
        ['parcel.shipped', 'ParcelShippedEventPayload', 'webhook parcel.shipped', 'union'],
      ],
    },
    {
      // one notification schema for two callbacks: its constant `kind` names neither
      spec: 'test/fixtures/callbacks30/openapi.yaml',
      discriminator: undefined,
      events: [
        ['paymentFailed', 'PaymentFailedEvent', 'callback createPayment.paymentFailed', 'by name'],
        ['paymentSucceeded', 'PaymentSucceededEvent', 'callback createPayment.paymentSucceeded', 'by name'],
        ['refundDone', 'RefundDoneEvent', 'callback createRefund.refundDone', 'by name'],
      ],
    },
  ])('$spec: discriminator $discriminator', { timeout: 60_000 }, async ({ spec, discriminator, events }) => {
    const m = await modelOf(spec);
    expect(m.webhookDiscriminator).toBe(discriminator);
    expect(
      m.webhooks.map((e) => [e.eventType, e.typeName, origins(e).join(','), e.discriminatorValue === undefined ? 'by name' : 'union']),
    ).toEqual(events);
    for (const e of m.webhooks) if (e.discriminatorValue !== undefined) expect(e.discriminatorValue).toBe(e.eventType);
  });

  it('events31: what each event carries (prose merged from its declarations, media type, examples, headers, type layer)', async () => {
    const m = await modelOf('test/fixtures/events31/openapi.yaml');
    const event = (name: string) => m.webhooks.find((e) => e.eventType === name)!;
    expect(event('parcel.delivered')).toMatchObject({
      discriminatorValue: 'parcel.delivered',
      summary: 'A parcel was delivered',
      description: 'Sent once, when the recipient signs for the parcel.',
      category: 'Exports',
      typeRef: 'components["schemas"]["ParcelDelivered"]',
      typeLayerSchema: undefined,
    });
    expect(event('heartbeat')).toMatchObject({
      discriminatorValue: undefined,
      mediaType: 'text/plain',
      examples: ['alive'],
      typeLayerSchema: 'HeartbeatEvent',
      typeRef: 'components["schemas"]["HeartbeatEvent"]',
    });
    expect(event('createExport.status').examples).toEqual([
      { export_id: 'exp_1', state: 'ready', download_url: 'https://parcels.example.com/exports/exp_1' },
    ]);
    expect(event('parcel.lost').headers.map((h) => h.name)).toEqual(['X-Parcel-Signature']);
    expect(event('parcel.lost').typeRef).toBe('NonNullable<webhooks["parcel.lost"]["post"]["requestBody"]>["content"]["application/json"]');
    expect(event('parcel.delivered').origins[0]).toEqual({
      kind: 'callback',
      name: 'parcelDelivered',
      expression: '{$request.body#/callback_url}',
      method: 'post',
      operationId: 'createExport',
      operationMethod: 'post',
      operationPath: '/exports',
      pointer: '#/paths/~1exports/post/callbacks/parcelDelivered/{$request.body#~1callback_url}/post',
    });
  });
});

/** A 3.1 document with the given webhooks, callbacks (on POST /things) and component schemas. */
function doc(parts: { webhooks?: object; callbacks?: object; schemas?: object; extensions?: object }) {
  const body = (schema: object) => ({
    requestBody: { content: { 'application/json': { schema } } },
    responses: { '200': { description: 'ok' } },
  });
  return {
    openapi: '3.1.0',
    info: { title: 'T', version: '1' },
    ...parts.extensions,
    paths: {
      '/things': {
        post: {
          operationId: 'createThing',
          responses: { '201': { description: 'ok' } },
          ...(parts.callbacks === undefined
            ? {}
            : {
                callbacks: Object.fromEntries(
                  Object.entries(parts.callbacks).map(([name, schema]) => [
                    name,
                    { '{$request.body#/url}': { post: body(schema as object) } },
                  ]),
                ),
              }),
        },
      },
    },
    ...(parts.webhooks === undefined
      ? {}
      : { webhooks: Object.fromEntries(Object.entries(parts.webhooks).map(([name, schema]) => [name, { post: body(schema as object) }])) }),
    components: { schemas: parts.schemas ?? {} },
  };
}

const constant = (property: string, value: string, required = true, extra: object = {}) => ({
  type: 'object',
  required: required ? [property] : [],
  properties: { [property]: { const: value }, ...extra },
});

describe('discriminator detection (D211)', () => {
  it.each([
    [
      'the property telling most payloads apart, not one constant of all of them',
      {
        webhooks: {
          a: constant('kind', 'a', true, { object: { const: 'event' } }),
          b: constant('kind', 'b', true, { object: { const: 'event' } }),
        },
      },
      'kind',
      ['a', 'b'],
    ],
    [
      'a tie goes to the usual name (`type` before `version`)',
      {
        webhooks: {
          a: {
            ...constant('type', 'x.created'),
            required: ['type', 'version'],
            properties: { type: { const: 'x.created' }, version: { const: '1' } },
          },
        },
      },
      'type',
      ['x.created'],
    ],
    [
      'an optional constant names nothing (a body may leave it out)',
      { webhooks: { a: constant('type', 'a', false), b: constant('type', 'b', false) } },
      undefined,
      ['a', 'b'],
    ],
    [
      'the extension decides (x-event-discriminator)',
      {
        extensions: { 'x-event-discriminator': 'topic' },
        webhooks: {
          a: { ...constant('topic', 't.a'), properties: { topic: { const: 't.a' }, type: { const: 'z' } }, required: ['topic', 'type'] },
        },
      },
      'topic',
      ['t.a'],
    ],
    [
      'a declared discriminator leaves the payloads without it to their names',
      { extensions: { 'x-event-discriminator': 'type' }, webhooks: { a: constant('type', 'x'), b: { type: 'string' } } },
      'type',
      ['b', 'x'],
    ],
    ['no webhooks or callbacks: no discriminator, no events', {}, undefined, []],
  ])('%s', (_name, parts, discriminator, names) => {
    const m = buildModel(doc(parts), { source: 't.yaml' });
    expect(m.webhookDiscriminator).toBe(discriminator);
    expect(m.webhooks.map((e) => e.eventType)).toEqual(names);
  });

  it('callbacks of one name with different payloads are qualified; a payload the union and a name share stays apart', () => {
    const m = buildModel(
      {
        ...doc({ webhooks: { done: constant('type', 'done') } }),
        paths: {
          '/a': {
            post: {
              operationId: 'a',
              responses: {},
              callbacks: {
                done: { '{$url}': { post: { requestBody: { content: { 'application/json': { schema: { type: 'string' } } } } } } },
              },
            },
          },
          '/b': {
            post: {
              operationId: 'b',
              responses: {},
              callbacks: {
                done: { '{$url}': { post: { requestBody: { content: { 'application/json': { schema: { type: 'integer' } } } } } } },
              },
            },
          },
        },
      },
      { source: 't.yaml' },
    );
    expect(m.webhooks.map((e) => [e.eventType, e.typeName, e.discriminatorValue])).toEqual([
      ['a.done', 'ADoneEvent', undefined],
      ['b.done', 'BDoneEvent', undefined],
      ['done', 'DoneEvent', 'done'],
    ]);
  });

  it('type names never take a name of the contract or of an enum, and a component name taken gives the type layer another', () => {
    const m = buildModel(
      doc({
        webhooks: { webhook: { type: 'object' }, thing: { type: 'object', properties: { n: { type: 'number' } } } },
        schemas: { ThingEvent: { type: 'string', enum: ['a'] } },
      }),
      { source: 't.yaml' },
    );
    expect(m.webhooks.map((e) => [e.eventType, e.typeName, e.typeRef])).toEqual([
      ['thing', 'ThingEventPayload', 'NonNullable<webhooks["thing"]["post"]["requestBody"]>["content"]["application/json"]'],
      ['webhook', 'WebhookEventPayload', 'NonNullable<webhooks["webhook"]["post"]["requestBody"]>["content"]["application/json"]'],
    ]);
    const inline = buildModel(doc({ callbacks: { thing: { type: 'object' } }, schemas: { ThingEvent: { type: 'string' } } }), {
      source: 't.yaml',
    });
    expect(inline.webhooks.map((e) => [e.typeName, e.typeLayerSchema])).toEqual([['ThingEvent', 'ThingEventPayload']]);
  });

  it('a webhook or callback without a request body sends no payload: it is no event', () => {
    const m = buildModel(
      { ...doc({}), webhooks: { ping: { post: { responses: { '200': { description: 'ok' } } } } } },
      { source: 't.yaml' },
    );
    expect(m.webhooks).toEqual([]);
  });
});
