/**
 * Machine-readable reason a webhook could not be verified.
 *
 * - `missing_headers`: `webhook-id`, `webhook-timestamp` or `webhook-signature` is absent.
 * - `invalid_timestamp`: `webhook-timestamp` is not a unix time in whole seconds.
 * - `timestamp_too_old` / `timestamp_too_new`: outside the tolerance window (replay protection / clock skew).
 * - `no_matching_signature`: none of the `v1,` signatures matches any configured secret.
 * - `invalid_secret`: a configured secret is not `whsec_` + base64 key bytes.
 * - `payload_not_raw`: the payload is not the raw request body (string / Buffer / Uint8Array).
 * - `invalid_json`: the signature is valid but the body is not JSON.
 */
export type WebhookVerificationErrorCode =
  | 'missing_headers'
  | 'invalid_timestamp'
  | 'timestamp_too_old'
  | 'timestamp_too_new'
  | 'no_matching_signature'
  | 'invalid_secret'
  | 'payload_not_raw'
  | 'invalid_json';

/**
 * Thrown when a webhook fails verification. `code` is stable and safe to switch on; `message` explains how to fix it.
 *
 * @example
 * ```ts
 * try {
 *   const event = wh.verify(rawBody, req.headers);
 * } catch (err) {
 *   if (err instanceof WebhookVerificationError && err.code === 'timestamp_too_old') {
 *     // replayed or heavily delayed delivery
 *   }
 *   throw err;
 * }
 * ```
 */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  readonly code: WebhookVerificationErrorCode;

  constructor(code: WebhookVerificationErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}
