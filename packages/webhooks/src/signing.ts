import { createHmac, randomBytes } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';

/** Prefix of every Paygate / Standard Webhooks symmetric secret. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** Standard Webhooks recommends symmetric keys of 24..64 bytes. */
const MIN_KEY_BYTES = 24;
const MAX_KEY_BYTES = 64;
const BASE64_RE = /^[A-Za-z0-9+/]+={0,2}$/;

/** A payload to sign: the exact bytes that are sent as the HTTP body. Strings are encoded as UTF-8. */
export type WebhookPayload = string | Uint8Array;

/** The three Standard Webhooks headers, lower-case names as Node delivers them. */
export type WebhookHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

export interface SignWebhookOptions {
  /** `whsec_` + base64(key bytes). */
  secret: string;
  /** Message id, the value of the `webhook-id` header (stable across retries of one event). */
  msgId: string;
  /** Send time: a Date or unix time in whole seconds. */
  timestamp: Date | number;
  /** The exact request body that will be sent. */
  payload: WebhookPayload;
}

export interface BuildWebhookHeadersOptions extends Omit<SignWebhookOptions, 'secret'> {
  /** One secret, or several during key rotation (one `v1,` signature each, space-separated). */
  secret: string | readonly string[];
}

/**
 * Generate a new endpoint secret: `whsec_` + base64 of 32 cryptographically random bytes.
 *
 * @example
 * ```ts
 * const secret = generateWebhookSecret(); // 'whsec_3q2+7w...='
 * ```
 */
export function generateWebhookSecret(): string {
  return WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64');
}

/**
 * Decode a `whsec_` secret into its key bytes. Throws {@link WebhookVerificationError} (`invalid_secret`) when the secret
 * is malformed. The `whsec_` prefix is optional on input (some dashboards show the bare base64 part).
 *
 * @example
 * ```ts
 * const key = decodeWebhookSecret('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw'); // 24-byte Buffer
 * ```
 */
export function decodeWebhookSecret(secret: string): Buffer {
  if (typeof secret !== 'string' || secret.length === 0) {
    throw new WebhookVerificationError(
      'invalid_secret',
      'Webhook secret is missing. Pass the endpoint secret shown when the webhook endpoint was created (it starts with "whsec_").',
    );
  }
  const b64 = secret.startsWith(WEBHOOK_SECRET_PREFIX) ? secret.slice(WEBHOOK_SECRET_PREFIX.length) : secret;
  if (!BASE64_RE.test(b64) || b64.length % 4 === 1) {
    throw new WebhookVerificationError(
      'invalid_secret',
      'Webhook secret is malformed: expected "whsec_" followed by base64. Copy the endpoint secret exactly, without quotes or whitespace.',
    );
  }
  const key = Buffer.from(b64, 'base64');
  if (key.length < MIN_KEY_BYTES || key.length > MAX_KEY_BYTES) {
    throw new WebhookVerificationError(
      'invalid_secret',
      `Webhook secret must decode to ${MIN_KEY_BYTES}..${MAX_KEY_BYTES} bytes, got ${key.length}. Copy the full endpoint secret (it starts with "whsec_").`,
    );
  }
  return key;
}

/** Normalise a Date or unix seconds into the integer seconds used in the signed content. */
export function toUnixSeconds(timestamp: Date | number): number {
  const seconds = timestamp instanceof Date ? Math.floor(timestamp.getTime() / 1000) : timestamp;
  if (!Number.isSafeInteger(seconds) || seconds < 0) {
    throw new TypeError(`Webhook timestamp must be a valid Date or a non-negative integer of unix seconds, got ${String(timestamp)}`);
  }
  return seconds;
}

/** Raw HMAC-SHA256 over `${msgId}.${timestamp}.${payload}` with already-decoded key bytes. @internal */
export function computeSignatureBytes(key: Uint8Array, msgId: string, timestamp: number, payload: WebhookPayload): Buffer {
  const hmac = createHmac('sha256', key);
  hmac.update(`${msgId}.${timestamp}.`, 'utf8');
  if (typeof payload === 'string') hmac.update(payload, 'utf8');
  else hmac.update(payload);
  return hmac.digest();
}

function assertMsgId(msgId: string): void {
  if (typeof msgId !== 'string' || msgId.length === 0) {
    throw new TypeError('Webhook msgId must be a non-empty string (the webhook-id header value)');
  }
}

/**
 * Sign a webhook per Standard Webhooks: `v1,` + base64(HMAC-SHA256(key, `${msgId}.${timestamp}.${payload}`)).
 *
 * @example
 * ```ts
 * signWebhook({
 *   secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
 *   msgId: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
 *   timestamp: 1614265330,
 *   payload: '{"test": 2432232314}',
 * }); // 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE='
 * ```
 */
export function signWebhook(options: SignWebhookOptions): string {
  assertMsgId(options.msgId);
  const key = decodeWebhookSecret(options.secret);
  const ts = toUnixSeconds(options.timestamp);
  return `v1,${computeSignatureBytes(key, options.msgId, ts, options.payload).toString('base64')}`;
}

/**
 * Build the `webhook-id`, `webhook-timestamp` and `webhook-signature` headers for a delivery. With several secrets
 * (rotation) the signature header carries one space-separated `v1,` signature per secret.
 *
 * @example
 * ```ts
 * const body = JSON.stringify(event);
 * const headers = buildWebhookHeaders({ secret: endpoint.secret, msgId: `msg_${event.sequence_number}`, timestamp: new Date(), payload: body });
 * await fetch(endpoint.url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body });
 * ```
 */
export function buildWebhookHeaders(options: BuildWebhookHeadersOptions): WebhookHeaders {
  const secrets = typeof options.secret === 'string' ? [options.secret] : [...options.secret];
  if (secrets.length === 0) {
    throw new WebhookVerificationError('invalid_secret', 'At least one webhook secret is required to sign a webhook.');
  }
  const ts = toUnixSeconds(options.timestamp);
  const signatures = secrets.map((secret) => signWebhook({ secret, msgId: options.msgId, timestamp: ts, payload: options.payload }));
  return {
    'webhook-id': options.msgId,
    'webhook-timestamp': String(ts),
    'webhook-signature': signatures.join(' '),
  };
}
