import { randomBytes, randomInt } from 'node:crypto';

/**
 * Identifier shapes (brief "Ids"). Sequence-backed ids come from one PostgreSQL SEQUENCE per kind (unique across
 * processes); the sequence value is mapped through a fixed bijection of the id space so consecutive ids do not
 * look consecutive. Random ids use crypto.randomBytes.
 */

export type SequenceKind = 'order' | 'payment' | 'refund' | 'settlement' | 'transaction' | 'merchant';

export const ID_PREFIX = {
  order: 'OD',
  payment: 'PR',
  refund: 'RF',
  settlement: 'ST',
  transaction: 'TX',
} as const satisfies Record<Exclude<SequenceKind, 'merchant'>, string>;

/** Name of the PostgreSQL sequence backing each kind (see migrations/001_initial.sql). */
export const SEQUENCE_NAME: Record<SequenceKind, string> = {
  order: 'order_id_seq',
  payment: 'payment_id_seq',
  refund: 'refund_id_seq',
  settlement: 'settlement_id_seq',
  transaction: 'transaction_id_seq',
  merchant: 'merchant_id_seq',
};

export const ID_PATTERN = {
  order: /^OD\d{16}$/,
  payment: /^PR\d{16}$/,
  refund: /^RF\d{16}$/,
  settlement: /^ST\d{16}$/,
  transaction: /^TX\d{16}$/,
  merchant: /^\d{8,20}$/,
  session: /^session_[A-Za-z0-9_-]{43}$/,
  webhookEndpoint: /^we_[A-Za-z0-9_-]{24}$/,
  document: /^doc_[A-Za-z0-9_-]{32}$/,
} as const;

const SPACE_16 = 10n ** 16n;
// Multiplier coprime with 10^16 (odd, not a multiple of 5) => x -> (x*K + C) mod 10^16 is a bijection.
const K_16 = 6364136223846793n;
const C_16 = 1442695040888963n;

const MERCHANT_BASE = 10n ** 9n;
const MERCHANT_SPACE = 9n * 10n ** 9n; // 10-digit ids 1000000000..9999999999
// Coprime with 9*10^9 (not divisible by 2, 3 or 5).
const K_M = 4294967291n;
const C_M = 2718281829n;

function toBigSeq(seq: number | bigint): bigint {
  const v = BigInt(seq);
  if (v < 1n) throw new RangeError(`sequence value must be >= 1, got ${seq}`);
  return v;
}

/** `formatSequenceId('order', 1)` -> `OD` + 16 digits. Distinct sequence values give distinct ids. */
export function formatSequenceId(kind: Exclude<SequenceKind, 'merchant'>, seq: number | bigint): string {
  const v = toBigSeq(seq);
  if (v >= SPACE_16) throw new RangeError(`${kind} id space exhausted`);
  const mapped = (v * K_16 + C_16) % SPACE_16;
  return ID_PREFIX[kind] + mapped.toString().padStart(16, '0');
}

/** Numeric merchant id (10 digits, no leading zero). */
export function formatMerchantId(seq: number | bigint): string {
  const v = toBigSeq(seq);
  if (v >= MERCHANT_SPACE) throw new RangeError('merchant id space exhausted');
  return (MERCHANT_BASE + ((v * K_M + C_M) % MERCHANT_SPACE)).toString();
}

/** `session_` + 43 base64url chars (256 random bits). */
export function newSessionId(): string {
  return `session_${randomBytes(32).toString('base64url')}`;
}

/** `we_` + 24 base64url chars (144 random bits). */
export function newWebhookEndpointId(): string {
  return `we_${randomBytes(18).toString('base64url')}`;
}

/** `doc_` + 32 base64url chars (192 random bits); also the stored file name. */
export function newDocumentId(): string {
  return `doc_${randomBytes(24).toString('base64url')}`;
}

const UPPER_ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

function randomFrom(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** Settlement UTR: 12 upper-case alphanumerics. */
export function newUtr(): string {
  return randomFrom(UPPER_ALNUM, 12);
}

/** Bank reference number: 12 digits. */
export function newBankRefNum(): string {
  return randomFrom('0123456789', 12);
}

/** Credentials issued to merchants (returned once). */
export function newClientId(live: boolean): string {
  return `${live ? 'ck_live_' : 'ck_test_'}${randomBytes(18).toString('base64url')}`;
}
export function newClientSecret(): string {
  return `cs_${randomBytes(32).toString('base64url')}`;
}
export function newEncryptionKey(): string {
  return `ek_${randomBytes(32).toString('base64url')}`;
}
