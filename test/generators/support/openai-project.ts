/**
 * OpenAI's spec as one generated project for the two files that compile it (D465 one OpenAI project for the real-world
 * and events tests): the real-world test (every target, strict tsc) and the events test (its 16 webhooks typed and
 * validated) generated and compiled it each on its own, the largest strict tsc of the run twice. Both now ask for the
 * same project (every target, and the events' type-level test among its files), so the second file's compile finds
 * the first's build info (D464 generated projects compiled incrementally in a directory per project).
 */
import { REALWORLD_SPECS } from '../../fixtures/realworld/specs.js';
import type { CompileOptions } from './compile-generated.js';

/** A type-level test of OpenAI's generated events (discriminated on `type`), compiled with them (never run). */
export const OPENAI_EVENT_TYPES = `import { expectTypeOf } from 'vitest';
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

const openai = REALWORLD_SPECS.find((spec) => spec.name === 'openai');
if (openai === undefined) throw new Error('test/fixtures/realworld/specs.ts lists no openai spec');

/** What both files generate and compile for OpenAI (lint: skip, as both did). */
export const OPENAI_PROJECT = {
  openapi: openai.openapi,
  targets: openai.targets,
  label: 'openai',
  extraFiles: { 'generated/events.types.ts': OPENAI_EVENT_TYPES },
} as const satisfies CompileOptions;
