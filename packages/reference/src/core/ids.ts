import { randomBytes, randomFillSync, randomInt } from 'node:crypto';

/**
 * Identifier shapes (brief "Ids"). Every id is random (crypto.randomInt / randomBytes): an id tells nothing about
 * another, about how many exist, or about the installation. Ids of rows are checked free before use and unique by
 * primary key (see deps.ts `randomIds`).
 */

export type IdKind = 'order' | 'payment' | 'refund' | 'settlement' | 'transaction' | 'merchant';

export const ID_PREFIX = {
  order: 'OD',
  payment: 'PR',
  refund: 'RF',
  settlement: 'ST',
  transaction: 'TX',
} as const satisfies Record<Exclude<IdKind, 'merchant'>, string>;

export const ID_PATTERN = {
  order: /^OD\d{16}$/,
  payment: /^PR\d{16}$/,
  refund: /^RF\d{16}$/,
  settlement: /^ST\d{16}$/,
  transaction: /^TX\d{16}$/,
  merchant: /^\d{8,20}$/,
  session: /^session_[A-Za-z0-9_-]{43}$/,
  webhookEndpoint: /^we_[A-Za-z0-9_-]{24}$/,
  /** Set by the database (migration 011, D99): 122 random bits. */
  webhookDelivery: /^dlv_[A-Za-z0-9_-]{22}$/,
  document: /^doc_[A-Za-z0-9_-]{32}$/,
} as const;

/** A random id of `kind`: prefix + 16 random digits (about 53 bits), or a 10-digit merchant id without a leading zero. */
export function newRandomId(kind: IdKind): string {
  if (kind === 'merchant') return `${1 + randomInt(9)}${randomDigits(9)}`;
  return ID_PREFIX[kind] + randomDigits(16);
}

/** Chunk of {@link randomDigits}: 10^8 < 2^48, randomInt's largest range. */
const DIGIT_CHUNK = 8;
const CHUNK_RANGE = 10 ** DIGIT_CHUNK;

/**
 * `length` uniformly random decimal digits, leading zeros kept. D175: one randomInt per 8 digits (two for an order id)
 * instead of one per digit: the same distribution, an eighth of the calls on every id drawn.
 */
export function randomDigits(length: number): string {
  let out = '';
  for (let left = length; left > 0; left -= DIGIT_CHUNK) {
    const n = Math.min(left, DIGIT_CHUNK);
    out += String(randomInt(n === DIGIT_CHUNK ? CHUNK_RANGE : 10 ** n)).padStart(n, '0');
  }
  return out;
}

/** Bytes of one session id (256 bits). */
const SESSION_BYTES = 32;
/** The CSPRNG bytes session ids are cut from, refilled when used up (D183 session ids from a random byte pool); every byte is handed out once. */
const sessionPool = Buffer.alloc(SESSION_BYTES * 128);
let sessionPoolOffset = sessionPool.length;

/**
 * `session_` + 43 base64url chars (256 random bits). D183: cut from a pool of 128 ids' worth of `randomFillSync`
 * bytes (what `crypto.randomUUID` does with its own pool) instead of one `randomBytes(32)` call per id; the same
 * generator, each byte used once, so ids stay independent and uniformly random.
 */
export function newSessionId(): string {
  if (sessionPoolOffset + SESSION_BYTES > sessionPool.length) {
    randomFillSync(sessionPool);
    sessionPoolOffset = 0;
  }
  const start = sessionPoolOffset;
  sessionPoolOffset += SESSION_BYTES;
  return `session_${sessionPool.toString('base64url', start, start + SESSION_BYTES)}`;
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
  return randomDigits(12);
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
