import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { WebhookVerificationError, type WebhookVerificationErrorCode } from './errors.js';
import type { EventCatalog } from './event-validation.js';
import { Webhook, type WebhookOptions } from './verify.js';

/** Delivery metadata passed to every handler. `webhookId` is stable across retries: use it to de-duplicate. */
export interface WebhookDeliveryContext {
  /** `webhook-id` header (`msg_` + the event's sequence_number for Paygate); '' for an unsigned delivery without one. */
  webhookId: string;
  /** `webhook-timestamp` of this delivery attempt (an unsigned delivery: when it was received). */
  timestamp: Date;
  /** The Express request. */
  req: Request;
}

/** One optional, precisely typed handler per event name (a key of the event map `M`, the generated `WebhookEventMap`). */
export type WebhookHandlerMap<M> = {
  [K in keyof M & string]?: (event: M[K], context: WebhookDeliveryContext) => unknown;
};

/** Codes of the JSON error body `{ error: { code, message } }` the receiver answers with. */
export type WebhookReceiverErrorCode = WebhookVerificationErrorCode | 'invalid_event' | 'payload_too_large' | 'handler_error';

/**
 * How deliveries are authenticated: Standard Webhooks signatures under the endpoint secret (`secret`, or `secrets`
 * during rotation), or `unsigned: true` for an API that does not sign them (Figma sends a `passcode` in the body:
 * check it in your handler) — then anyone who knows the URL can post to it.
 */
type VerificationOption =
  | { secret: string | readonly string[]; secrets?: never; unsigned?: never }
  | { secrets: readonly string[]; secret?: never; unsigned?: never }
  | { unsigned: true; secret?: never; secrets?: never };

export type WebhookReceiverOptions<M> = VerificationOption &
  WebhookOptions & {
    /**
     * The API's events: the generated `webhookEvents`, or `webhookEvents.only(name)` on a route that receives one
     * event known by name (a callback URL, D212).
     */
    events: EventCatalog<M>;
    /** Handlers by event name. May return a promise; a throw/rejection answers 500 so the sender retries. */
    on: WebhookHandlerMap<M>;
    /** Called for valid events without a handler in `on` (they are still acknowledged with 204). */
    onUnhandled?: (event: M[keyof M], context: WebhookDeliveryContext) => unknown;
    /** Observability hook for handler failures (the receiver itself answers 500 and does not log). */
    onError?: (error: unknown, event: M[keyof M], context: WebhookDeliveryContext) => void;
    /** Maximum raw body size read by the receiver itself. Default 1 MiB. */
    maxBodyBytes?: number;
  };

const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

class BodyTooLargeError extends Error {}

function readRawBody(req: Request, limit: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const cleanup = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    const onData = (chunk: Buffer | string): void => {
      const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += buf.length;
      if (size > limit) {
        done = true;
        cleanup();
        req.resume(); // drain and discard the rest
        reject(new BodyTooLargeError(`Webhook body exceeds ${limit} bytes`));
        return;
      }
      chunks.push(buf);
    };
    const onEnd = (): void => {
      if (done) return;
      done = true;
      cleanup();
      resolve(Buffer.concat(chunks));
    };
    const onError = (err: Error): void => {
      if (done) return;
      done = true;
      cleanup();
      reject(err);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

function sendError(res: Response, status: number, code: WebhookReceiverErrorCode, message: string, extra?: Record<string, unknown>): void {
  res.status(status).json({ error: { code, message, ...extra } });
}

/** Reads an unsigned delivery: its JSON, the `webhook-id` header when sent, the time it arrived. */
function readUnsigned(raw: Buffer | string, req: Request, clock: () => Date): { id: string; timestamp: Date; payload: unknown } {
  let payload: unknown;
  try {
    payload = JSON.parse(typeof raw === 'string' ? raw : raw.toString('utf8'));
  } catch (error) {
    throw new WebhookVerificationError('invalid_json', 'The delivery body is not valid JSON.', { cause: error });
  }
  return { id: headerId(req), timestamp: clock(), payload };
}

function headerId(req: Request): string {
  const id = req.headers['webhook-id'];
  return typeof id === 'string' ? id : '';
}

/**
 * Create an Express 5 middleware that receives an API's webhooks (or callbacks): it reads the raw body itself (or uses
 * `req.body` when it is a Buffer from `express.raw()`), verifies the Standard Webhooks signature (unless `unsigned`),
 * validates the event with `events` (by its discriminator, or as the one event of `events.only(name)`), and dispatches
 * it to the handler for its name.
 *
 * Responses: 204 when handled (or unhandled but valid); 400 `{ error: { code, message } }` on verification or validation
 * failure; 413 when the body exceeds `maxBodyBytes`; 500 only when your handler throws (the sender will retry).
 * Delivery is at-least-once: de-duplicate with `context.webhookId`.
 *
 * @example
 * ```ts
 * import express from 'express';
 * import { createWebhookReceiver, webhookEvents } from '@paygate/webhooks';
 *
 * const app = express();
 * app.post(
 *   '/webhooks/paygate',
 *   createWebhookReceiver({
 *     secret: process.env.PAYGATE_WEBHOOK_SECRET!,
 *     events: webhookEvents,
 *     on: {
 *       PAYMENT_FAILED: async (event) => markFailed(event.data.order_id, event.data.message),
 *       PAYMENT_SETTLED: async (event) => recordSettlements(event.data.settlements),
 *     },
 *   }),
 * );
 * ```
 */
export function createWebhookReceiver<M>(options: WebhookReceiverOptions<M>): RequestHandler {
  const secrets = options.secret ?? options.secrets;
  if (secrets === undefined && options.unsigned !== true) {
    throw new WebhookVerificationError(
      'invalid_secret',
      'createWebhookReceiver needs `secret` (or `secrets` during rotation), or `unsigned: true` for an API that does not sign its deliveries.',
    );
  }
  const webhookOptions: WebhookOptions = {};
  if (options.toleranceSeconds !== undefined) webhookOptions.toleranceSeconds = options.toleranceSeconds;
  if (options.clock !== undefined) webhookOptions.clock = options.clock;
  // Constructed eagerly: a malformed secret fails at startup, not on the first delivery.
  const webhook = secrets === undefined ? undefined : new Webhook(secrets, webhookOptions);
  const clock = options.clock ?? (() => new Date());
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  type AnyEvent = M[keyof M];
  const handlers = options.on as Readonly<Record<string, ((event: AnyEvent, context: WebhookDeliveryContext) => unknown) | undefined>>;

  return async function paygateWebhookReceiver(req: Request, res: Response, _next: NextFunction): Promise<void> {
    let raw: Buffer | string | undefined;
    let parsed: unknown;
    const body: unknown = req.body;
    if (Buffer.isBuffer(body) || typeof body === 'string') {
      raw = body;
    } else if (body !== undefined && webhook === undefined) {
      parsed = body; // unsigned: no signature covers the bytes, so a body express.json() parsed is as good
    } else if (body === undefined && req.readable && !req.readableEnded) {
      try {
        raw = await readRawBody(req, maxBodyBytes);
      } catch (err) {
        if (err instanceof BodyTooLargeError) {
          res.set('Connection', 'close');
          sendError(res, 413, 'payload_too_large', `${err.message}. Raise maxBodyBytes if your events are larger.`);
          return;
        }
        throw err;
      }
    } else {
      sendError(
        res,
        400,
        'payload_not_raw',
        'The webhook route received an already-parsed body, so the signature cannot be checked. ' +
          "Mount the receiver before express.json() (or exclude this route from it), or use express.raw({ type: 'application/json' }).",
      );
      return;
    }

    let verified: { id: string; timestamp: Date; payload: unknown };
    try {
      if (raw === undefined) verified = { id: headerId(req), timestamp: clock(), payload: parsed };
      else verified = webhook === undefined ? readUnsigned(raw, req, clock) : webhook.verifyDetailed(raw, req.headers);
    } catch (err) {
      if (err instanceof WebhookVerificationError) {
        sendError(res, 400, err.code, err.message);
        return;
      }
      throw err;
    }

    const result = options.events.validate(verified.payload);
    if (!result.ok) {
      const summary = result.errors
        .slice(0, 10)
        .map((e) => `${e.path || '/'}: ${e.message}`)
        .join('; ');
      sendError(res, 400, 'invalid_event', `Webhook event failed validation: ${summary}`, { details: result.errors });
      return;
    }

    const { name } = result;
    const event = result.event as AnyEvent;
    const context: WebhookDeliveryContext = { webhookId: verified.id, timestamp: verified.timestamp, req };
    const handler = Object.hasOwn(handlers, name) ? handlers[name] : undefined;
    try {
      if (handler) await handler(event, context);
      else if (options.onUnhandled) await options.onUnhandled(event, context);
    } catch (err) {
      try {
        options.onError?.(err, event, context);
      } catch {
        // an observability hook must not change the response
      }
      if (!res.headersSent) {
        sendError(res, 500, 'handler_error', `The ${name} handler failed; the delivery will be retried.`);
      }
      return;
    }
    if (!res.headersSent) res.status(204).end();
  };
}
