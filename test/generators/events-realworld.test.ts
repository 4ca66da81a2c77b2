/**
 * Events of real specs nobody here wrote (D210-D213): Figma's 7 webhook events, declared as `callbacks` of its
 * webhook-creation operation and discriminated on `event_type`, and OpenAI's 16 `webhooks`, discriminated on `type`.
 * Each is generated (contract + webhooks) the way `paygate generate --out` does, compiled by strict `tsc` together with
 * a type-level test of its event types (expectTypeOf / @ts-expect-error), and its generated validators are run on a
 * sampled valid payload of every event (and on broken ones); its docs events page lists every event with its source.
 */
import { pathToFileURL } from 'node:url';
import pLimit from 'p-limit';
import { describe, expect, it } from 'vitest';
import { RefResolver } from '../../generators/src/model/ref-resolver.js';
import type { ApiModel } from '../../generators/src/model/types.js';
import { eventEntries, readDocsTemplates, renderDocsPages, webhookGuide } from '../../generators/src/emit/docs-site.js';
import { DEFAULT_TEMPLATES_DIR } from '../../generators/src/emit/templates.js';
import { sampleOf, type Json } from '../../packages/contract-tests/src/spec-check/samples.js';
import type { EventCatalog, WebhookValidationResult } from '../../packages/webhooks/src/event-validation.js';
import { generateAndCompile, type CompileOptions } from './support/compile-generated.js';
import { OPENAI } from './support/openai-project.js';

/** A type-level test of Figma's generated events, compiled with them (never run). */
const FIGMA_TYPES = `import { expectTypeOf } from 'vitest';
import { createWebhookReceiver } from '@paygate/webhooks';
import type { FileCommentEvent, PingEvent, WebhookEvent, WebhookEventMap, WebhookEventName, WebhookEventType } from './contract/index.js';
import { validateEvent, validateWebhookEvent, webhookEvents, WEBHOOK_EVENT_NAMES } from './webhooks/index.js';

type Figma = 'DEV_MODE_STATUS_UPDATE' | 'FILE_COMMENT' | 'FILE_DELETE' | 'FILE_UPDATE' | 'FILE_VERSION_UPDATE' | 'LIBRARY_PUBLISH' | 'PING';
expectTypeOf<WebhookEventType>().toEqualTypeOf<Figma>();
expectTypeOf<WebhookEventName>().toEqualTypeOf<Figma>();
expectTypeOf<(typeof WEBHOOK_EVENT_NAMES)[number]>().toEqualTypeOf<Figma>();
expectTypeOf<WebhookEventMap['PING']>().toEqualTypeOf<PingEvent>();
expectTypeOf<PingEvent['passcode']>().toEqualTypeOf<string>();
expectTypeOf<FileCommentEvent['comment_id']>().toEqualTypeOf<string>();

/** The union narrows on event_type, exhaustively. */
export function describeEvent(event: WebhookEvent): string {
  switch (event.event_type) {
    case 'FILE_UPDATE':
    case 'FILE_DELETE':
      return event.file_name;
    case 'FILE_COMMENT':
      return event.comment_id;
    case 'FILE_VERSION_UPDATE':
      return event.version_id;
    case 'LIBRARY_PUBLISH':
      return event.file_key;
    case 'DEV_MODE_STATUS_UPDATE':
    case 'PING':
      return event.webhook_id;
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

const byName = validateEvent('FILE_DELETE', {} as unknown);
if (byName.ok) expectTypeOf(byName.event.file_key).toEqualTypeOf<string>();
const found = webhookEvents.validate({} as unknown);
if (found.ok && found.name === 'FILE_UPDATE') expectTypeOf(found.event.file_name).toEqualTypeOf<string>();
const any = validateWebhookEvent({} as unknown);
if (any.ok) expectTypeOf(any.event).toEqualTypeOf<WebhookEvent>();
// @ts-expect-error not an event of Figma's
validateEvent('FILE_CREATE', {});

// Figma signs nothing (a passcode in the body): an unsigned receiver, handlers typed per event
export function mount(): void {
  createWebhookReceiver({
    unsigned: true,
    events: webhookEvents,
    on: {
      FILE_UPDATE: (event) => expectTypeOf(event.passcode).toEqualTypeOf<string>(),
      // @ts-expect-error not an event of Figma's
      FILE_CREATE: () => undefined,
    },
  });
}
`;

/** The same for OpenAI's webhooks, discriminated on `type`. */
const OPENAI_TYPES = `import { expectTypeOf } from 'vitest';
import { WEBHOOK_EVENT_DISCRIMINATOR, type BatchCompletedEvent, type WebhookEvent, type WebhookEventMap, type WebhookEventName, type WebhookEventType } from './contract/index.js';
import { validateEvent } from './webhooks/index.js';

expectTypeOf<typeof WEBHOOK_EVENT_DISCRIMINATOR>().toEqualTypeOf<'type'>();
expectTypeOf<'batch.completed' | 'response.failed' | 'realtime.call.incoming'>().toExtend<WebhookEventType>();
expectTypeOf<WebhookEventName>().toEqualTypeOf<WebhookEventType>();
expectTypeOf<WebhookEventMap['batch.completed']>().toEqualTypeOf<BatchCompletedEvent>();
expectTypeOf<BatchCompletedEvent['data']['id']>().toEqualTypeOf<string>();
expectTypeOf<BatchCompletedEvent['created_at']>().toEqualTypeOf<number>();

export function idOf(event: WebhookEvent): string {
  if (event.type === 'batch.failed') return event.data.id;
  if (event.type === 'response.completed') expectTypeOf(event).toEqualTypeOf<WebhookEventMap['response.completed']>();
  return event.id;
}

const result = validateEvent('eval.run.failed', {} as unknown);
if (result.ok) expectTypeOf(result.event.type).toEqualTypeOf<'eval.run.failed'>();
// @ts-expect-error webhook names are not event names: the event is its type
validateEvent('batch_completed', {});
`;

interface GeneratedWebhooks {
  webhookEvents: EventCatalog<Record<string, unknown>>;
  validateEvent: (name: string, input: unknown) => WebhookValidationResult;
  validateWebhookEvent: (input: unknown) => WebhookValidationResult;
}

interface ValidatorRun {
  /** Events whose sampled payload both validators accept (by name, and found by its discriminator). */
  accepted: string[];
  /** Each event's sample without one required property, and whether it was (wrongly) accepted. */
  refused: { name: string; missing: string; ok: boolean }[];
  wrongDiscriminator: WebhookValidationResult;
}

/** A valid payload of every event (sampled from its schema) through the generated validators, and a broken one. */
async function runValidators(dir: string, model: ApiModel): Promise<ValidatorRun> {
  const webhooks = (await import(pathToFileURL(`${dir}/generated/webhooks/index.ts`).href)) as GeneratedWebhooks;
  const resolver = new RefResolver({ components: { schemas: Object.fromEntries(model.schemas.map((s) => [s.name, s.schema])) } });
  const deref = (node: Json | undefined): Json | undefined => resolver.deref<Json | undefined>(node);
  const run: ValidatorRun = { accepted: [], refused: [], wrongDiscriminator: { ok: true, event: null } };
  for (const event of model.webhooks) {
    const sample = sampleOf(event.schema as Json, deref) as Record<string, Json>;
    const byName = webhooks.validateEvent(event.eventType, sample);
    const byBody = webhooks.webhookEvents.validate(sample);
    if (byName.ok && byBody.ok && byBody.name === event.eventType) run.accepted.push(event.eventType);
    const required = [...resolver.objectShape(event.schema).required].filter((p) => p !== model.webhookDiscriminator).sort();
    const missing = required[0]!;
    const { [missing]: _dropped, ...broken } = sample;
    run.refused.push({ name: event.eventType, missing, ok: webhooks.validateEvent(event.eventType, broken).ok });
  }
  run.wrongDiscriminator = webhooks.validateWebhookEvent({ [model.webhookDiscriminator ?? 'type']: 'no.such.event' });
  return run;
}

/** OpenAI's is compiled in the directory the real-world test compiles it in (D465 one OpenAI project directory for the real-world and events tests). */
const SPECS = [
  {
    name: 'figma',
    project: {
      openapi: 'test/fixtures/realworld/figma/openapi.yaml',
      targets: ['contract', 'webhooks'],
      label: 'events-figma',
      extraFiles: { 'generated/events.types.ts': FIGMA_TYPES },
    } satisfies CompileOptions,
    events: 7,
    discriminator: 'event_type',
  },
  {
    name: 'openai',
    project: {
      ...OPENAI,
      targets: ['contract', 'webhooks'],
      label: 'events-openai',
      extraFiles: { 'generated/events.types.ts': OPENAI_TYPES },
    } satisfies CompileOptions,
    events: 16,
    discriminator: 'type',
  },
] as const;

const limit = pLimit(1); // one tsc at a time: the machine is shared
/** Started once, one at a time; each test awaits its own. */
const outcomes = new Map(
  SPECS.map((spec) => {
    const pending = limit(async () => {
      let validators: ValidatorRun | undefined;
      const outcome = await generateAndCompile({
        ...spec.project,
        use: async (dir, { result }) => {
          validators = await runValidators(dir, result.model);
        },
      });
      return { outcome, validators: validators! };
    });
    pending.catch(() => undefined); // a refusal fails that spec's test, not the run
    return [spec.name, pending] as const;
  }),
);

/** The docs site's events page of a spec (its events part only: no error catalogue, no decisions). */
function eventsPage(model: ApiModel): string {
  const pages = renderDocsPages({
    api: { title: model.title, version: model.version },
    errors: [],
    decisions: [],
    events: eventEntries(model),
    webhooks: webhookGuide(model),
    templates: readDocsTemplates(DEFAULT_TEMPLATES_DIR),
  });
  const page = pages.get('events.html');
  if (page === undefined) throw new Error(`no events page for ${model.title}`);
  return page;
}

describe.each(SPECS)('events of $name', (spec) => {
  it(`generate, compile strictly with a type-level test of the ${spec.events} events, and validate a sample of each`, {
    timeout: 300_000,
  }, async () => {
    const { outcome, validators } = await outcomes.get(spec.name)!;
    console.log(`${spec.name}: generate ${(outcome.generateMs / 1000).toFixed(1)} s, tsc --noEmit ${(outcome.tscMs / 1000).toFixed(1)} s`);
    expect(outcome.diagnostics).toBe('');
    expect(outcome.tscCode).toBe(0);
    const { model } = outcome.result;
    expect(model.webhookDiscriminator).toBe(spec.discriminator);
    expect(model.webhooks).toHaveLength(spec.events);
    expect(validators.accepted).toEqual(model.webhooks.map((e) => e.eventType));
    for (const refused of validators.refused) expect(refused, `${refused.name} without ${refused.missing}`).toMatchObject({ ok: false });
    expect(validators.wrongDiscriminator).toMatchObject({ ok: false, errors: [{ path: `/${spec.discriminator}` }] });
  });

  it('the docs events page lists every event with where it is declared', { timeout: 120_000 }, async () => {
    const { model } = (await outcomes.get(spec.name)!).outcome.result;
    const html = eventsPage(model);
    for (const event of model.webhooks) expect(html).toContain(`<section class="event" id="${event.eventType}">`);
    if (spec.name === 'figma') {
      expect(html).toContain('callbacks to the URL you pass to the operation that declares them');
      expect(html).toContain(
        'Callback <code>fileUpdate</code> of <code>postWebhook</code> (<code>POST /v2/webhooks</code>): a <code>POST</code> to <code>{$request.body#/endpoint}</code>.',
      );
      // the fields every event shares are the envelope; each event lists its own
      expect(html).toMatch(/<h2 id="envelope">Envelope<\/h2>[\s\S]*<code>passcode<\/code>[\s\S]*<code>webhook_id<\/code>/);
      expect(html).toMatch(/id="FILE_UPDATE"[\s\S]*?<th>Field<\/th>[\s\S]*?<code>file_key<\/code>/);
    } else {
      expect(html).toContain('Webhook <code>batch_completed</code>: a <code>POST</code> to the webhook endpoints you register.');
      expect(html).toMatch(/id="batch.completed"[\s\S]*?<th><code>data<\/code> field<\/th>[\s\S]*?<code>id<\/code>/);
    }
    expect(html).not.toMatch(/Paygate|whsec_/);
  });
});
