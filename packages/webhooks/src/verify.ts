import { timingSafeEqual } from 'node:crypto';
import { WebhookVerificationError } from './errors.js';
import { computeSignatureBytes, decodeWebhookSecret } from './signing.js';

export { WebhookVerificationError, type WebhookVerificationErrorCode } from './errors.js';

/** Incoming headers: Node's `req.headers` (any key casing), a plain record, or a Fetch API `Headers`. */
export type WebhookHeadersInput = Readonly<Record<string, string | readonly string[] | undefined>> | Headers;

/** The raw request body exactly as received. */
export type RawWebhookPayload = string | Buffer | Uint8Array;

export interface WebhookOptions {
  /** Maximum allowed distance between `webhook-timestamp` and the clock, both directions. Default 300 s. */
  toleranceSeconds?: number;
  /** Clock used for the tolerance check (inject a fixed clock in tests). Default `() => new Date()`. */
  clock?: () => Date;
}

/** Headers and timestamp of a verified delivery. `id` is stable across retries: use it to de-duplicate. */
export interface VerifiedWebhook<T = unknown> {
  id: string;
  timestamp: Date;
  payload: T;
}

const DEFAULT_TOLERANCE_SECONDS = 300;
const SIGNATURE_BYTES = 32;
const TIMESTAMP_RE = /^\d{1,15}$/;

function readHeader(headers: WebhookHeadersInput, name: string): string | undefined {
  if (typeof Headers !== 'undefined' && headers instanceof Headers) {
    return headers.get(name) ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  let value = record[name];
  if (value === undefined) {
    // Not Node's lower-cased headers: look the name up case-insensitively.
    for (const key of Object.keys(record)) {
      if (key.toLowerCase() === name) {
        value = record[key];
        break;
      }
    }
  }
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  // Repeated header lines: signatures are a space-separated list anyway; for id/timestamp take the first.
  return name === 'webhook-signature' ? value.join(' ') : value[0];
}

function describePayloadType(payload: unknown): string {
  if (payload === null) return 'null';
  if (Array.isArray(payload)) return 'an array';
  return typeof payload === 'object' ? 'an object' : `a ${typeof payload}`;
}

/**
 * Verifies Standard Webhooks deliveries (`webhook-id`, `webhook-timestamp`, `webhook-signature`) against one or more
 * endpoint secrets. During key rotation pass every active secret: a delivery is accepted when ANY secret matches ANY
 * of the space-separated `v1,` signatures. Signatures are compared in constant time.
 *
 * @example
 * ```ts
 * import express from 'express';
 * import { Webhook, validateWebhookEvent } from '@paygate/webhooks';
 *
 * const wh = new Webhook(process.env.PAYGATE_WEBHOOK_SECRET!);
 * app.post('/webhooks/paygate', express.raw({ type: 'application/json' }), (req, res) => {
 *   const payload = wh.verify(req.body, req.headers); // throws WebhookVerificationError
 *   const result = validateWebhookEvent(payload);
 *   res.sendStatus(result.ok ? 204 : 400);
 * });
 * ```
 */
export class Webhook {
  readonly #keys: Buffer[];
  readonly #toleranceSeconds: number;
  readonly #clock: () => Date;

  constructor(secret: string | readonly string[], options: WebhookOptions = {}) {
    const secrets = typeof secret === 'string' ? [secret] : [...secret];
    if (secrets.length === 0) {
      throw new WebhookVerificationError(
        'invalid_secret',
        'No webhook secret configured. Pass the endpoint secret (it starts with "whsec_"), or an array of secrets during rotation.',
      );
    }
    this.#keys = secrets.map((s) => decodeWebhookSecret(s));
    const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
    if (!Number.isFinite(tolerance) || tolerance < 0) {
      throw new RangeError(`toleranceSeconds must be a non-negative number, got ${String(tolerance)}`);
    }
    this.#toleranceSeconds = tolerance;
    this.#clock = options.clock ?? (() => new Date());
  }

  /**
   * Verify a delivery and return the parsed JSON body.
   *
   * @param payload the RAW request body (string, Buffer or Uint8Array), byte-for-byte as received
   * @param headers the request headers (`req.headers` or a Fetch `Headers`)
   * @throws {WebhookVerificationError} with a `code` describing the failure
   */
  verify<T = unknown>(payload: RawWebhookPayload, headers: WebhookHeadersInput): T {
    return this.verifyDetailed<T>(payload, headers).payload;
  }

  /** Like {@link Webhook.verify} but also returns the message id (for de-duplication) and the signed timestamp. */
  verifyDetailed<T = unknown>(payload: RawWebhookPayload, headers: WebhookHeadersInput): VerifiedWebhook<T> {
    if (typeof payload !== 'string' && !(payload instanceof Uint8Array)) {
      throw new WebhookVerificationError(
        'payload_not_raw',
        `Webhook payload must be the raw request body (string or Buffer), got ${describePayloadType(payload)}. ` +
          "Are you passing the parsed JSON? Use express.raw({ type: 'application/json' }) on the webhook route " +
          '(and no express.json() before it), then pass req.body.',
      );
    }
    if (headers === null || typeof headers !== 'object') {
      throw new WebhookVerificationError('missing_headers', 'Webhook headers are missing: pass the request headers (req.headers).');
    }

    const msgId = readHeader(headers, 'webhook-id');
    const timestampHeader = readHeader(headers, 'webhook-timestamp');
    const signatureHeader = readHeader(headers, 'webhook-signature');
    const missing = [
      msgId ? undefined : 'webhook-id',
      timestampHeader ? undefined : 'webhook-timestamp',
      signatureHeader ? undefined : 'webhook-signature',
    ].filter((h): h is string => h !== undefined);
    if (missing.length > 0 || !msgId || !timestampHeader || !signatureHeader) {
      throw new WebhookVerificationError(
        'missing_headers',
        `Missing required webhook header(s): ${missing.join(', ')}. ` +
          'Pass all request headers to verify() and make sure no proxy strips the webhook-* headers.',
      );
    }

    const trimmedTs = timestampHeader.trim();
    if (!TIMESTAMP_RE.test(trimmedTs)) {
      throw new WebhookVerificationError(
        'invalid_timestamp',
        `Invalid webhook-timestamp header "${timestampHeader.slice(0, 32)}": expected unix time in whole seconds.`,
      );
    }
    const timestamp = Number(trimmedTs);
    const nowSeconds = Math.floor(this.#clock().getTime() / 1000);
    if (nowSeconds - timestamp > this.#toleranceSeconds) {
      throw new WebhookVerificationError(
        'timestamp_too_old',
        `Webhook timestamp is too old (${nowSeconds - timestamp} s > tolerance ${this.#toleranceSeconds} s). ` +
          'This is a replayed or heavily delayed delivery; if your server clock is wrong, sync it with NTP.',
      );
    }
    if (timestamp - nowSeconds > this.#toleranceSeconds) {
      throw new WebhookVerificationError(
        'timestamp_too_new',
        `Webhook timestamp is ${timestamp - nowSeconds} s in the future (tolerance ${this.#toleranceSeconds} s). ` +
          'Check that your server clock is synchronised (NTP).',
      );
    }

    const candidates: Buffer[] = [];
    for (const part of signatureHeader.split(' ')) {
      const comma = part.indexOf(',');
      if (comma === -1 || part.slice(0, comma) !== 'v1') continue; // other schemes (e.g. v1a) are not ours
      const decoded = Buffer.from(part.slice(comma + 1), 'base64');
      if (decoded.length === SIGNATURE_BYTES) candidates.push(decoded);
    }

    let matched = false;
    for (const key of this.#keys) {
      const expected = computeSignatureBytes(key, msgId, timestamp, payload);
      for (const candidate of candidates) {
        // Both are 32 bytes: timingSafeEqual is safe to call. Do not short-circuit inside one comparison.
        if (timingSafeEqual(expected, candidate)) matched = true;
      }
    }
    if (!matched) {
      throw new WebhookVerificationError(
        'no_matching_signature',
        'No matching webhook signature found. Check that you use the signing secret of THIS endpoint (whsec_...), ' +
          'and that you pass the raw request body unmodified (no JSON.parse/JSON.stringify round trip, no re-encoding).',
      );
    }

    const text =
      typeof payload === 'string' ? payload : Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('utf8');
    let parsed: T;
    try {
      parsed = JSON.parse(text) as T;
    } catch (cause) {
      throw new WebhookVerificationError('invalid_json', 'Webhook signature is valid but the body is not valid JSON.', { cause });
    }
    return { id: msgId, timestamp: new Date(timestamp * 1000), payload: parsed };
  }
}

export interface VerifyWebhookOptions extends WebhookOptions {
  /** One endpoint secret, or several during rotation. */
  secret: string | readonly string[];
  payload: RawWebhookPayload;
  headers: WebhookHeadersInput;
}

/**
 * One-shot form of {@link Webhook.verify}. Prefer a long-lived `Webhook` instance in servers (secrets decoded once).
 *
 * @example
 * ```ts
 * const event = verifyWebhook({ secret: 'whsec_...', payload: req.body, headers: req.headers });
 * ```
 */
export function verifyWebhook<T = unknown>(options: VerifyWebhookOptions): T {
  const { secret, payload, headers, ...rest } = options;
  return new Webhook(secret, rest).verify<T>(payload, headers);
}
