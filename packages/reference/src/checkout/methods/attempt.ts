import type { MopType } from '@paygate/contract';
import type { Schemas } from '../../core/contract.js';
import { bankFor, NETBANKING_FAILED_MESSAGE } from './banks.js';
import { type CardSummary, cardDigits, summarizeCard, testCardFor } from './cards.js';
import { bankCodeError, cardFieldErrors, MESSAGES, vpaError, type FieldErrors } from './field-checks.js';

/** The hosted page's form as the generated request validator hands it over. */
export type CheckoutForm = Schemas['CheckoutFormSubmission'];

export type { FieldErrors };

/** What a payment keeps of the method (the spec's `Payment.mop_detail`). */
export type MopDetail = Schemas['Payment']['mop_detail'];

/**
 * What pressing Pay with this form does (decision D71-D73): re-show the page with errors, hold a card for the
 * 3-D Secure challenge, or finish the payment now.
 */
export type PaymentAttempt =
  | { kind: 'invalid'; mopType: MopType; errors: FieldErrors }
  | { kind: 'three_ds'; mopType: MopType; card: CardSummary }
  | { kind: 'finish'; mopType: MopType; mopDetail: MopDetail; success: boolean; failureMessage?: string };

export const VPA_ERROR = MESSAGES.vpa;
export const UPI_FAILED_MESSAGE = 'Collect request declined by the customer';
/** The sandbox VPA that fails (the s2s collection's failure@paygate, orders/upi.ts). */
export const FAILING_SANDBOX_VPA = 'failure@paygate';

/** UPI: with a VPA a collect request (sandbox: failure@paygate fails); without one the customer paid by the QR code. */
function upiAttempt(form: CheckoutForm): PaymentAttempt {
  const vpa = (form.vpa ?? '').trim();
  if (vpa === '') return { kind: 'finish', mopType: 'UPI', mopDetail: {}, success: true };
  const error = vpaError(vpa);
  if (error !== undefined) return { kind: 'invalid', mopType: 'UPI', errors: { vpa: error } };
  const fails = vpa.toLowerCase() === FAILING_SANDBOX_VPA;
  return {
    kind: 'finish',
    mopType: 'UPI',
    mopDetail: { upi_id: vpa },
    success: !fails,
    ...(fails ? { failureMessage: UPI_FAILED_MESSAGE } : {}),
  };
}

/** Cards: every field checked (all errors at once, field-checks.ts), then the test card decides. `now`: the order's clock (ms). */
function cardAttempt(mopType: MopType, form: CheckoutForm, now: number): PaymentAttempt {
  const errors = cardFieldErrors(form, now);
  const digits = cardDigits(form.card_number ?? '');
  const card = digits === null ? undefined : testCardFor(digits);
  if (Object.keys(errors).length > 0 || !card || digits === null) return { kind: 'invalid', mopType, errors };
  const mopDetail: MopDetail = summarizeCard(digits);
  switch (card.behaviour.kind) {
    case 'success':
      return { kind: 'finish', mopType, mopDetail, success: true };
    case 'decline':
      return { kind: 'finish', mopType, mopDetail, success: false, failureMessage: card.behaviour.message };
    case 'three_ds':
      return { kind: 'three_ds', mopType, card: summarizeCard(digits) };
  }
}

/** Net banking: a bank from the sandbox list (PGFL fails). */
function netbankingAttempt(form: CheckoutForm): PaymentAttempt {
  const bank = bankFor(form.bank_code ?? '');
  const error = bankCodeError(form.bank_code);
  if (!bank || error !== undefined) return { kind: 'invalid', mopType: 'NET_BANKING', errors: { bank_code: error ?? MESSAGES.bank } };
  const mopDetail: MopDetail = { bank_code: bank.code, bank_name: bank.name, bank: bank.name };
  return bank.succeeds
    ? { kind: 'finish', mopType: 'NET_BANKING', mopDetail, success: true }
    : { kind: 'finish', mopType: 'NET_BANKING', mopDetail, success: false, failureMessage: NETBANKING_FAILED_MESSAGE };
}

/** Decide what Pay does for the chosen method. `now`: the order's clock in ms (card expiry is checked against it). */
export function decidePaymentAttempt(mopType: MopType, form: CheckoutForm, now: number): PaymentAttempt {
  switch (mopType) {
    case 'UPI':
      return upiAttempt(form);
    case 'QR':
      return { kind: 'finish', mopType: 'QR', mopDetail: {}, success: true };
    case 'CREDIT_CARD':
    case 'DEBIT_CARD':
      return cardAttempt(mopType, form, now);
    case 'NET_BANKING':
      return netbankingAttempt(form);
  }
}
