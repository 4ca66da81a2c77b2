import { validationError } from './errors.js';

/**
 * Money as integer minor units. Every supported currency has 2 decimals. Conversions go through strings and
 * bigint; there is no floating-point arithmetic on amounts.
 */

export const AMOUNT_PATTERN = /^\d+\.\d{2}$/;
export const MAX_AMOUNT_TEXT_LENGTH = 13;

/** `'1500.00'` -> 150000. Throws RangeError on a malformed or unsafe value. */
export function parseAmount(text: string): number {
  if (typeof text !== 'string' || !AMOUNT_PATTERN.test(text) || text.length > MAX_AMOUNT_TEXT_LENGTH) {
    throw new RangeError(`amount must match ^\\d+\\.\\d{2}$ (max ${MAX_AMOUNT_TEXT_LENGTH} chars), got ${JSON.stringify(text)}`);
  }
  const minor = BigInt(text.replace('.', ''));
  if (minor > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('amount is too large');
  return Number(minor);
}

/** Like {@link parseAmount} but throws a 400 DomainError naming `field`. */
export function parseAmountField(field: string, text: string): number {
  try {
    return parseAmount(text);
  } catch {
    throw validationError(field, 'must be a decimal string with exactly two decimals, e.g. "1500.00"');
  }
}

function assertMinor(minor: number): void {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`minor units must be a safe integer, got ${minor}`);
}

/** 150000 -> `'1500.00'`; -5 -> `'-0.05'`. */
export function formatAmount(minor: number): string {
  assertMinor(minor);
  const negative = minor < 0;
  const digits = String(Math.abs(minor)).padStart(3, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -2)}.${digits.slice(-2)}`;
}

/** 150000 -> 1500 (JSON number for responses), 150050 -> 1500.5, via the decimal string. */
export function amountToNumber(minor: number): number {
  return Number(formatAmount(minor));
}

/** Divide with round-half-up on magnitude (half away from zero), integers only. */
export function divRoundHalfUp(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError('denominator must be positive');
  const negative = numerator < 0n;
  const abs = negative ? -numerator : numerator;
  const q = (abs * 2n + denominator) / (denominator * 2n);
  return negative ? -q : q;
}

/** `percentOf(amount, 200)` = 2.00 % of amount, rounded half up to the minor unit. Rate in basis points. */
export function percentOf(minor: number, basisPoints: number): number {
  assertMinor(minor);
  if (!Number.isSafeInteger(basisPoints) || basisPoints < 0) throw new RangeError('basis points must be a non-negative integer');
  return Number(divRoundHalfUp(BigInt(minor) * BigInt(basisPoints), 10_000n));
}
