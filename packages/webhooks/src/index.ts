/**
 * @paygate/webhooks: Standard Webhooks signing and verification, an Express receiver, and (generated) event types and
 * validators for Paygate webhook events (for another API, `paygate generate` writes the same for its webhooks and
 * callbacks into its own `webhooks/` folder).
 *
 * @example
 * ```ts
 * import { Webhook, validateWebhookEvent, type WebhookEvent } from '@paygate/webhooks';
 *
 * const wh = new Webhook(process.env.PAYGATE_WEBHOOK_SECRET!);
 * const result = validateWebhookEvent(wh.verify(rawBody, req.headers));
 * if (result.ok && result.event.event_type === 'PAYMENT_FAILED') console.log(result.event.data.message);
 * ```
 * @packageDocumentation
 */
export { WebhookVerificationError, type WebhookVerificationErrorCode } from './errors.js';
export {
  WEBHOOK_SECRET_PREFIX,
  buildWebhookHeaders,
  decodeWebhookSecret,
  generateWebhookSecret,
  signWebhook,
  toUnixSeconds,
  type BuildWebhookHeadersOptions,
  type SignWebhookOptions,
  type WebhookHeaders,
  type WebhookPayload,
} from './signing.js';
export {
  Webhook,
  verifyWebhook,
  type RawWebhookPayload,
  type VerifiedWebhook,
  type VerifyWebhookOptions,
  type WebhookHeadersInput,
  type WebhookOptions,
} from './verify.js';
export {
  createWebhookReceiver,
  type WebhookDeliveryContext,
  type WebhookHandlerMap,
  type WebhookReceiverErrorCode,
  type WebhookReceiverOptions,
} from './receiver.js';
export {
  createEventCatalog,
  type CompiledEventValidator,
  type EventCatalog,
  type EventValidationResult,
} from './event-validation.js';
export * from './generated/index.js';
