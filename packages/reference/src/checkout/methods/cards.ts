import { passesLuhn } from '../../core/luhn.js';

/**
 * Card rules of the hosted checkout (decision D71): number (Luhn), expiry (MM/YY, not past), CVC, network from the
 * BIN, and the sandbox test cards that decide the outcome. Pure functions: nothing here stores or logs a number;
 * callers keep only {@link CardSummary} (last four digits and network).
 */

/** Card networks the page recognises from the BIN (`mop_detail.card_network`). */
export const CARD_NETWORKS = ['visa', 'mastercard', 'rupay', 'amex', 'diners', 'unknown'] as const;
export type CardNetwork = (typeof CARD_NETWORKS)[number];

/** What a payment keeps of a card: never the number itself. */
export interface CardSummary {
  card_last4: string;
  card_network: CardNetwork;
}

/** Digits of a number typed with spaces or dashes (`4242 4242-4242 4242` -> `4242424242424242`); null if anything else. */
export function cardDigits(input: string): string | null {
  const digits = input.replace(/[\s-]/g, '');
  return /^\d{12,19}$/.test(digits) ? digits : null;
}

/** True for 12..19 digits (spaces and dashes allowed) passing the Luhn check. */
export function isValidCardNumber(input: string): boolean {
  const digits = cardDigits(input);
  return digits !== null && passesLuhn(digits);
}

/** One IIN range: card numbers whose first `digits` digits, read as a number, lie in [from, to]. */
export interface IinRange {
  network: Exclude<CardNetwork, 'unknown'>;
  digits: number;
  from: number;
  to: number;
}

/**
 * IIN ranges in the order they are tried (Visa 4; Mastercard 51-55 and 2221-2720; American Express 34/37; RuPay 60,
 * 65, 81, 82, 508, 353, 356; Diners 36, 38, 300-305). RuPay is tried before Diners' and Discover's overlapping ranges
 * because the gateway serves India, where those BINs are RuPay's. Data, so the hosted page's script shows the brand
 * as the shopper types with the very same rules (page.ts embeds this table).
 */
export const CARD_IIN_RANGES: readonly IinRange[] = [
  { network: 'visa', digits: 1, from: 4, to: 4 },
  { network: 'mastercard', digits: 2, from: 51, to: 55 },
  { network: 'mastercard', digits: 4, from: 2221, to: 2720 },
  { network: 'amex', digits: 2, from: 34, to: 34 },
  { network: 'amex', digits: 2, from: 37, to: 37 },
  ...[60, 65, 81, 82].map((n): IinRange => ({ network: 'rupay', digits: 2, from: n, to: n })),
  ...[508, 353, 356].map((n): IinRange => ({ network: 'rupay', digits: 3, from: n, to: n })),
  { network: 'diners', digits: 2, from: 36, to: 36 },
  { network: 'diners', digits: 2, from: 38, to: 38 },
  { network: 'diners', digits: 3, from: 300, to: 305 },
];

/** The network of a card number from its leading digits ({@link CARD_IIN_RANGES}). */
export function cardNetwork(digits: string): CardNetwork {
  const range = CARD_IIN_RANGES.find((r) => {
    if (digits.length < r.digits) return false;
    const prefix = Number(digits.slice(0, r.digits));
    return prefix >= r.from && prefix <= r.to;
  });
  return range?.network ?? 'unknown';
}

/** How the page names each card network next to the number (the brand shown as the shopper types). */
export const CARD_NETWORK_NAMES: Readonly<Record<Exclude<CardNetwork, 'unknown'>, string>> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  rupay: 'RuPay',
  amex: 'American Express',
  diners: 'Diners Club',
};

/** The CVC length a network uses: four digits on the front of an American Express card, three elsewhere. */
export function cvcLength(network: CardNetwork): number {
  return network === 'amex' ? 4 : 3;
}

/** An expiry as the page takes it: `MM/YY`, `MM/YYYY`, spaces around the slash (the field's HTML pattern is made from it). */
export const EXPIRY_PATTERN = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/;

/**
 * `MM/YY` (also `MM/YYYY`, `MM / YY`) -> the last month it is valid in, or null when it is not a date. A card is valid
 * through the end of its expiry month.
 */
export function parseExpiry(input: string): { month: number; year: number } | null {
  const match = EXPIRY_PATTERN.exec(input);
  if (!match) return null;
  const month = Number(match[1]);
  const year = match[2]!.length === 2 ? 2000 + Number(match[2]) : Number(match[2]);
  if (month < 1 || month > 12) return null;
  return { month, year };
}

/** True when the card has expired before `now` (ms since epoch, UTC): after the last day of its expiry month. */
export function isExpired(expiry: { month: number; year: number }, now: number): boolean {
  const firstOfNextMonth = Date.UTC(expiry.year, expiry.month, 1);
  return now >= firstOfNextMonth;
}

/** What a sandbox test card does when paid with. */
export type TestCardBehaviour = { kind: 'success' } | { kind: 'decline'; message: string } | { kind: 'three_ds' };

export const CARD_DECLINED_MESSAGE = 'Card declined by the issuer';
export const INSUFFICIENT_FUNDS_MESSAGE = 'Insufficient funds on the card';
export const THREE_DS_FAILED_MESSAGE = '3-D Secure authentication failed';

export interface TestCard {
  number: string;
  network: CardNetwork;
  behaviour: TestCardBehaviour;
  /** One line for the documentation. */
  description: string;
}

/**
 * The sandbox test cards (D71 one card form with sandbox test cards), in the style of Stripe's and Razorpay's: any future expiry, any CVC of the right
 * length, any name. Any other Luhn-valid number is refused in the sandbox (as Stripe's test mode refuses real cards), so
 * a real card number is never processed.
 */
export const TEST_CARDS: readonly TestCard[] = [
  { number: '4242424242424242', network: 'visa', behaviour: { kind: 'success' }, description: 'Visa: succeeds' },
  { number: '5555555555554444', network: 'mastercard', behaviour: { kind: 'success' }, description: 'Mastercard: succeeds' },
  { number: '6522000000000006', network: 'rupay', behaviour: { kind: 'success' }, description: 'RuPay: succeeds' },
  { number: '378282246310005', network: 'amex', behaviour: { kind: 'success' }, description: 'American Express: succeeds (4-digit CVC)' },
  { number: '4000056655665556', network: 'visa', behaviour: { kind: 'success' }, description: 'Visa debit: succeeds' },
  {
    number: '4000000000000002',
    network: 'visa',
    behaviour: { kind: 'decline', message: CARD_DECLINED_MESSAGE },
    description: `Declined: "${CARD_DECLINED_MESSAGE}"`,
  },
  {
    number: '4000000000009995',
    network: 'visa',
    behaviour: { kind: 'decline', message: INSUFFICIENT_FUNDS_MESSAGE },
    description: `Declined: "${INSUFFICIENT_FUNDS_MESSAGE}"`,
  },
  {
    number: '4000000000003220',
    network: 'visa',
    behaviour: { kind: 'three_ds' },
    description: `3-D Secure challenge page: Approve succeeds, Fail is "${THREE_DS_FAILED_MESSAGE}"`,
  },
];

/** The test card with these digits, or undefined (a number that is not a sandbox test card). */
export function testCardFor(digits: string): TestCard | undefined {
  return TEST_CARDS.find((card) => card.number === digits);
}

/** Last four digits and network: all a payment keeps of a card. */
export function summarizeCard(digits: string): CardSummary {
  return { card_last4: digits.slice(-4), card_network: cardNetwork(digits) };
}
