import { isValidVpa } from '../../orders/vpa.js';
import { bankFor } from './banks.js';
import { cardDigits, cardNetwork, cvcLength, isExpired, isValidCardNumber, parseExpiry, testCardFor } from './cards.js';

/**
 * The hosted checkout's field rules and their messages, one function per field (decision D294). The server applies
 * them when Pay is posted (attempt.ts) and the page's script (../browser/checkout-page.ts, bundled) applies the same
 * functions as the shopper types, so a message seen in the browser is the one the server would answer. Pure: no
 * import but the card and VPA rules, so the browser bundle carries nothing else.
 */

/** Form fields that can carry an error next to them. */
export type CheckoutField = 'mop_type' | 'vpa' | 'card_number' | 'card_expiry' | 'card_cvc' | 'card_name' | 'bank_code';

/** A field's error message, shown next to it (`aria-describedby`). */
export type FieldErrors = Partial<Record<CheckoutField, string>>;

/** The card fields as the form posts them. */
export interface CardFields {
  card_number?: string | undefined;
  card_expiry?: string | undefined;
  card_cvc?: string | undefined;
  card_name?: string | undefined;
}

export const MESSAGES = {
  vpa: 'Enter a UPI ID like name@bank (letters, digits, dot, dash or underscore before the @)',
  cardNumberMissing: 'Enter the card number',
  cardNumberInvalid: 'Check the card number: it is not a valid card number',
  cardNumberNotTestCard: 'This is not a sandbox test card: pay with one of the sandbox test cards (see Sandbox test cards below the form)',
  expiryMissing: 'Enter the expiry date as MM/YY',
  expiryMalformed: 'Enter the expiry date as MM/YY, for example 12/30',
  expired: 'This card has expired: check the date or use another card',
  cvcMissing: 'Enter the security code (CVC)',
  cvc3: 'Enter the 3-digit security code on the back of the card',
  cvc4: 'Enter the 4-digit security code on the front of the card',
  /** Before the number says which network: the rule for either length (the `title` of the CVC field). */
  cvcAny: 'Enter the security code: 3 digits on the back of the card, 4 on the front of an American Express card',
  nameMissing: 'Enter the name on the card',
  bank: 'Choose your bank',
} as const;

const blank = (input: string | undefined) => (input ?? '').trim() === '';

/** A UPI ID, or nothing (the customer paid by QR code or in a UPI app). */
export function vpaError(input: string | undefined): string | undefined {
  const vpa = (input ?? '').trim();
  return vpa === '' || isValidVpa(vpa) ? undefined : MESSAGES.vpa;
}

/** 12-19 digits (spaces and dashes allowed) passing the Luhn check, and one of the sandbox test cards (D71 one card form with sandbox test cards). */
export function cardNumberError(input: string | undefined): string | undefined {
  if (blank(input)) return MESSAGES.cardNumberMissing;
  const digits = cardDigits(input ?? '');
  if (digits === null || !isValidCardNumber(digits)) return MESSAGES.cardNumberInvalid;
  return testCardFor(digits) === undefined ? MESSAGES.cardNumberNotTestCard : undefined;
}

/** `MM/YY` (or `MM/YYYY`), not before `now` (ms; the order's clock: a sandbox clock may be ahead). */
export function cardExpiryError(input: string | undefined, now: number): string | undefined {
  if (blank(input)) return MESSAGES.expiryMissing;
  const expiry = parseExpiry(input ?? '');
  if (!expiry) return MESSAGES.expiryMalformed;
  return isExpired(expiry, now) ? MESSAGES.expired : undefined;
}

/** 3 or 4 digits, and exactly the length the card's network uses once the number says which. */
export function cardCvcError(input: string | undefined, cardNumber: string | undefined): string | undefined {
  const cvc = (input ?? '').trim();
  if (cvc === '') return MESSAGES.cvcMissing;
  const digits = cardDigits(cardNumber ?? '');
  const wanted = digits === null ? null : cvcLength(cardNetwork(digits));
  if (/^\d{3,4}$/.test(cvc) && (wanted === null || cvc.length === wanted)) return undefined;
  return wanted === 4 ? MESSAGES.cvc4 : MESSAGES.cvc3;
}

export function cardNameError(input: string | undefined): string | undefined {
  return blank(input) ? MESSAGES.nameMissing : undefined;
}

/** One of the sandbox banks (net banking). */
export function bankCodeError(input: string | undefined): string | undefined {
  return bankFor(input ?? '') === undefined ? MESSAGES.bank : undefined;
}

/** Every card field's error at once (the page shows them all together). */
export function cardFieldErrors(form: CardFields, now: number): FieldErrors {
  const errors: FieldErrors = {};
  const found: [CheckoutField, string | undefined][] = [
    ['card_number', cardNumberError(form.card_number)],
    ['card_expiry', cardExpiryError(form.card_expiry, now)],
    ['card_cvc', cardCvcError(form.card_cvc, form.card_number)],
    ['card_name', cardNameError(form.card_name)],
  ];
  for (const [field, message] of found) if (message !== undefined) errors[field] = message;
  return errors;
}
