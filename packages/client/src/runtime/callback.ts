import { createHmac, timingSafeEqual } from 'node:crypto';

/** The return-URL callback fields covered by the hash, in hashing order. `message` is deliberately not covered. */
export const CALLBACK_HASH_FIELDS = ['order_id', 'payment_id', 'status', 'mop_type', 'bank_ref_num', 'payment_completed_at'] as const;
export type CallbackHashField = (typeof CALLBACK_HASH_FIELDS)[number];

/**
 * Callback fields: the parsed `application/x-www-form-urlencoded` body as a plain object (e.g. `req.body` from
 * `express.urlencoded()`, or any object/interface with these optional keys; other keys are ignored) or `URLSearchParams`.
 * Values must be strings; `undefined`/`null` count as missing.
 */
export type CallbackFields = URLSearchParams | { readonly [K in CallbackHashField | 'hash' | 'message']?: unknown };

const HASH_RE = /^[0-9a-f]{64}$/;

function assertKey(encryptionKey: string): void {
  if (typeof encryptionKey !== 'string' || encryptionKey.length === 0) {
    throw new TypeError('encryptionKey must be the merchant encryption key (a non-empty string, ek_...)');
  }
}

/** Read one field: missing => '', repeated or non-string => error (ambiguous input must never verify). */
function fieldValue(fields: CallbackFields, name: string): string {
  if (fields instanceof URLSearchParams) {
    const all = fields.getAll(name);
    if (all.length > 1) throw new TypeError(`callback field ${name} is repeated`);
    return all[0] ?? '';
  }
  const record = fields as Readonly<Record<string, unknown>>;
  const value = Object.hasOwn(record, name) ? record[name] : undefined;
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string')
    throw new TypeError(`callback field ${name} must be a string, got ${Array.isArray(value) ? 'array' : typeof value}`);
  return value;
}

/**
 * Compute the return-URL callback hash: HMAC-SHA256 with the merchant encryption key (UTF-8) over
 * `order_id|payment_id|status|mop_type|bank_ref_num|payment_completed_at` (missing fields are empty strings),
 * lower-case hex. This is the single implementation: the reference gateway signs callbacks with it.
 *
 * @throws TypeError if the key is empty or a hashed field is not a single string
 * @example
 * ```ts
 * const hash = computeCallbackHash(
 *   { order_id: 'OD0000000000000001', payment_id: 'PR0000000000000001', status: 'payment_successful',
 *     mop_type: 'CARD', bank_ref_num: '123456789012', payment_completed_at: '2026-11-21 10:15:30+00:00' },
 *   'ek_...',
 * ); // 64 lower-case hex characters
 * ```
 */
export function computeCallbackHash(fields: CallbackFields, encryptionKey: string): string {
  assertKey(encryptionKey);
  const text = CALLBACK_HASH_FIELDS.map((name) => fieldValue(fields, name)).join('|');
  return createHmac('sha256', Buffer.from(encryptionKey, 'utf8')).update(text, 'utf8').digest('hex');
}

/**
 * Verify a return-URL callback. Returns false when `hash` is missing, malformed (not 64 lower-case hex characters),
 * a hashed field is repeated or not a string, or the hash does not match (constant-time comparison).
 * A valid hash only proves the redirect came from Paygate: still read the order and treat the payment as successful
 * only when its status is `payment_successful`.
 *
 * During a credential rotation's overlap window, pass both keys (`[newKey, previousKey]`): a checkout session opened
 * before the rotation is signed with the key current when it was opened. True when any key matches.
 *
 * @throws TypeError if a key is empty, or no key is given (a configuration error, not a forged callback)
 * @example
 * ```ts
 * app.post('/paygate/return', express.urlencoded({ extended: false }), (req, res) => {
 *   if (!verifyCallback(req.body, process.env.PAYGATE_ENCRYPTION_KEY!)) return res.status(400).send('invalid callback');
 *   // ... fetch the order and check its status
 * });
 * ```
 */
export function verifyCallback(fields: CallbackFields, encryptionKey: string | readonly string[]): boolean {
  const keys: readonly string[] = typeof encryptionKey === 'string' ? [encryptionKey] : encryptionKey;
  if (!Array.isArray(keys) || keys.length === 0)
    throw new TypeError('encryptionKey must be the merchant encryption key, or a non-empty list of keys');
  keys.forEach(assertKey);
  let received: string;
  const expected: string[] = [];
  try {
    received = fieldValue(fields, 'hash');
    for (const key of keys) expected.push(computeCallbackHash(fields, key));
  } catch {
    return false;
  }
  if (!HASH_RE.test(received)) return false;
  const presented = Buffer.from(received, 'hex');
  // every key is compared (no early exit), each in constant time
  return expected.map((e) => timingSafeEqual(Buffer.from(e, 'hex'), presented)).includes(true);
}
