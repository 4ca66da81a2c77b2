import type { Schemas } from '../core/contract.js';
// D171: the callback hash alone, not the client's index (openapi-fetch and the generated client: start-up cost)
import { computeCallbackHash } from '@paygate/client/runtime/callback.js';
import { DomainError, VALIDATION_MESSAGE } from '../core/errors.js';
import { ID_PATTERN } from '../core/ids.js';
import { amountToNumber, formatAmount } from '../core/money.js';
import { normalizeMopType, type MopType } from '../orders/input.js';
import { formatCallbackTime, formatIso, parseIso, type Micros } from '../core/clock.js';
import type { ServiceDeps } from '../core/deps.js';
import { callbackKeyForSession } from '../credentials/service.js';
import {
  cancelOrder,
  createPendingPayment,
  failCheckoutAttempt,
  finishPayment,
  isExpired,
  orderNow,
  STATUS_MESSAGE,
} from '../orders/lifecycle.js';
import { loadOrder, type OrderRow } from '../orders/rows.js';
import type { Db } from '../db/db.js';
import type { CardSummary } from './methods/cards.js';

interface SessionRow {
  id: string;
  order_id: string;
  expires_at: string;
  used_at: string | null;
  /** The merchant's callback key version when the session was created (D37 callbacks signed with the session's key version). */
  encryption_key_version: number;
  /** A card waiting on the 3-D Secure challenge page (D73 sandbox 3-D Secure challenge page), else null. */
  card_challenge: CardChallenge | null;
}

/** A card held for the 3-D Secure challenge: the method and what the payment keeps (never the card number). */
export interface CardChallenge {
  mop_type: MopType;
  mop_detail: CardSummary;
}

/** 401 ERR_AUTH_000 with details.session_id (the seed shows message "Missing credentials" for a bad session). */
function sessionError(reason: string): DomainError {
  return new DomainError('ERR_AUTH_000', 'Missing credentials', { session_id: reason });
}

type SessionCheck = { ok: true; session: SessionRow; order: OrderRow; at: Micros } | { ok: false; reason: string };

/**
 * Lock the session and its order, expiring the order if its 15 minutes are over on its merchant's clock (that change
 * commits). `at` is that clock's now.
 */
async function checkSession(tx: Db, deps: ServiceDeps, sessionId: string): Promise<SessionCheck> {
  const { rows } = await tx.query<SessionRow>(
    'SELECT id, order_id, expires_at, used_at, encryption_key_version, card_challenge FROM checkout_sessions WHERE id = $1 FOR UPDATE',
    [sessionId],
  );
  const session = rows[0];
  if (!session) return { ok: false, reason: 'is invalid' };
  const order = await loadOrder(tx, null, session.order_id, true);
  const at = orderNow(deps, order);
  if (session.used_at !== null) return { ok: false, reason: 'has already been used' };
  if (parseIso(session.expires_at) <= at || isExpired(order, at)) {
    if (order.status === 'payment_pending') await cancelOrder(tx, order, 'expired', at);
    return { ok: false, reason: 'has expired; create a new order' };
  }
  if (order.status !== 'payment_pending') return { ok: false, reason: 'has already been used' };
  return { ok: true, session, order, at };
}

function assertSessionShape(sessionId: string): void {
  if (typeof sessionId !== 'string' || !ID_PATTERN.session.test(sessionId)) throw sessionError('is malformed');
}

export interface CheckoutSessionInfo {
  session_id: string;
  order_id: string;
  merchant_id: string;
  amount_minor: number;
  /** The card waiting on the 3-D Secure challenge, if any. */
  card_challenge: CardChallenge | null;
  expires_at: string;
  amount: number;
  /** The amount as a two-decimal string (for display, no float formatting). */
  amount_text: string;
  currency: string;
  reference_id: string;
  merchant_name: string;
  mop_type: string | null;
  product_name: string | null;
  buyer_name: string | null;
  return_url: string | null;
  /** The order's now (its merchant's sandbox clock), which the page counts down from. */
  now: Micros;
}

/** What the hosted page shows. Invalid / malformed / expired / used session => 401 ERR_AUTH_000 details.session_id. */
export async function getCheckoutSession(deps: ServiceDeps, sessionId: string): Promise<CheckoutSessionInfo> {
  assertSessionShape(sessionId);
  const check = await deps.db.transaction((tx) => checkSession(tx, deps, sessionId));
  if (!check.ok) throw sessionError(check.reason);
  const { order, session } = check;
  const { rows } = await deps.db.query<{ brand_name: string }>(
    `SELECT company_details->>'brand_name' AS brand_name FROM merchants WHERE id = $1`,
    [order.merchant_id],
  );
  return {
    session_id: session.id,
    order_id: order.id,
    merchant_id: order.merchant_id,
    amount_minor: order.amount_minor,
    card_challenge: session.card_challenge,
    expires_at: session.expires_at,
    amount: amountToNumber(order.amount_minor),
    amount_text: formatAmount(order.amount_minor),
    currency: order.currency,
    reference_id: order.reference_id,
    merchant_name: rows[0]?.brand_name ?? '',
    mop_type: order.mop_type,
    product_name: typeof order.product.name === 'string' ? order.product.name : null,
    buyer_name: typeof order.buyer.name === 'string' ? order.buyer.name : null,
    return_url: order.return_url,
    now: check.at,
  };
}

/**
 * Hold a card for the 3-D Secure challenge (the session stays open until the customer answers on the challenge
 * page). An invalid, expired or used session => 401 ERR_AUTH_000.
 */
export async function holdCardChallenge(deps: ServiceDeps, sessionId: string, challenge: CardChallenge): Promise<void> {
  assertSessionShape(sessionId);
  const check = await deps.db.transaction(async (tx) => {
    const result = await checkSession(tx, deps, sessionId);
    if (result.ok) await tx.query('UPDATE checkout_sessions SET card_challenge = $2 WHERE id = $1', [sessionId, JSON.stringify(challenge)]);
    return result;
  });
  if (!check.ok) throw sessionError(check.reason);
}

export type CheckoutOutcome = Schemas['CheckoutFormSubmission']['outcome'];

/** Form fields posted to return_url (application/x-www-form-urlencoded), including `hash`. */
export type CallbackFields = Schemas['ReturnUrlCallback'];

export interface CheckoutResult {
  order_id: string;
  payment_id: string | null;
  order_status: string;
  return_url: string | null;
  callback: CallbackFields;
}

/**
 * How many payments one hosted session may try (D126 a decline on the hosted page keeps the session open): the attempts a shopper may retry after a decline, the last
 * of which ends the order payment_failed like a single decline did before.
 */
export const MAX_CHECKOUT_ATTEMPTS = 5;

/** A declined attempt the shopper may retry on the same page (D126 a decline on the hosted page keeps the session open): the payment failed, the session stays open. */
export interface CheckoutRetry {
  retry: true;
  payment_id: string;
  /** Why the attempt failed (the decline message shown on the page). */
  message: string;
  /** Attempts left in this session after this one. */
  attempts_left: number;
}

/**
 * The customer finished on the hosted page. success => payment CAPTURED, order payment_successful; failure =>
 * payment FAILED (PAYMENT_FAILED emitted), order payment_failed; cancel => order payment_cancelled, no payment.
 * Through submitCheckoutAttempt (a decline on the page itself, D126) a failure that leaves attempts keeps the order pending and
 * the session open and answers a CheckoutRetry instead. A finished session is consumed; the result carries the
 * return-URL callback fields with the HMAC hash (merchant encryption key).
 */
export async function completeCheckoutSession(deps: ServiceDeps, sessionId: string, input: CheckoutCompletion): Promise<CheckoutResult> {
  const result = await finishCheckout(deps, sessionId, input, false);
  if ('retry' in result) throw new Error('a completion without retry answered a retry'); // unreachable: retryable is false
  return result;
}

/** The hosted page's Pay: like completeCheckoutSession, but a decline with attempts left is a CheckoutRetry (D126 a decline on the hosted page keeps the session open). */
export function submitCheckoutAttempt(
  deps: ServiceDeps,
  sessionId: string,
  input: CheckoutCompletion,
): Promise<CheckoutResult | CheckoutRetry> {
  return finishCheckout(deps, sessionId, input, true);
}

/** What the customer (or the sandbox) did on the hosted page. */
export interface CheckoutCompletion {
  outcome: CheckoutOutcome;
  mopType?: string | undefined;
  mopDetail?: Record<string, unknown> | undefined;
  failureMessage?: string | undefined;
}

async function finishCheckout(
  deps: ServiceDeps,
  sessionId: string,
  input: CheckoutCompletion,
  retryable: boolean,
): Promise<CheckoutResult | CheckoutRetry> {
  assertSessionShape(sessionId);
  let mopType: MopType | undefined;
  if (input.mopType !== undefined) {
    mopType = normalizeMopType(input.mopType);
    if (!mopType) throw new DomainError('ERR_VALIDATION_400', VALIDATION_MESSAGE, { mop_type: 'is not a supported method of payment' });
  }
  const result = await deps.db.transaction(async (tx) => {
    const check = await checkSession(tx, deps, sessionId);
    if (!check.ok) return check;
    const { order, at, session } = check;
    const mop = mopType ?? (order.mop_type as MopType | null) ?? 'UPI';
    if (input.outcome === 'failure' && retryable) {
      // payments of one order: at most MAX_CHECKOUT_ATTEMPTS rows, read through the order_id index
      const { rows } = await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM payments WHERE order_id = $1', [order.id]);
      const attemptsLeft = MAX_CHECKOUT_ATTEMPTS - 1 - (rows[0]?.n ?? 0);
      if (attemptsLeft > 0) {
        const message = input.failureMessage ?? STATUS_MESSAGE.paymentDeclined;
        const pending = await createPendingPayment(tx, deps, order, {
          mopType: mop,
          mopDetail: input.mopDetail ?? {},
          message: STATUS_MESSAGE.paymentPending,
          at,
        });
        const failed = await failCheckoutAttempt(tx, order, pending, message, at);
        await tx.query('UPDATE checkout_sessions SET card_challenge = NULL WHERE id = $1', [sessionId]);
        return { ok: true as const, retry: { retry: true as const, payment_id: failed.id, message, attempts_left: attemptsLeft } };
      }
    }
    await tx.query('UPDATE checkout_sessions SET used_at = $2 WHERE id = $1', [sessionId, formatIso(at)]);
    // the key current when the session was created, while it is still valid (D37 callbacks signed with the session's key version)
    const key = await callbackKeyForSession(tx, deps, order.merchant_id, session.encryption_key_version);
    if (input.outcome === 'cancel') {
      await cancelOrder(tx, order, 'cancelled', at);
      const status: CallbackFields['status'] = 'payment_cancelled';
      return { ok: true as const, order, at, paymentId: '', bankRef: '', mop, status, message: STATUS_MESSAGE.orderCancelled, key };
    }
    const pending = await createPendingPayment(tx, deps, order, {
      mopType: mop,
      mopDetail: input.mopDetail ?? {},
      message: STATUS_MESSAGE.paymentPending,
      at,
    });
    const success = input.outcome === 'success';
    const message = success ? STATUS_MESSAGE.paymentCaptured : (input.failureMessage ?? STATUS_MESSAGE.paymentDeclined);
    const done = await finishPayment(tx, order, pending, success ? 'CAPTURED' : 'FAILED', message, at);
    return {
      ok: true as const,
      order,
      at,
      paymentId: done.payment.id,
      bankRef: done.payment.bank_ref_num,
      mop,
      status: done.orderStatus,
      message,
      key,
    };
  });
  if (!result.ok) throw sessionError(result.reason);
  if (result.retry !== undefined) return result.retry;
  const fields = {
    order_id: result.order.id,
    payment_id: result.paymentId,
    status: result.status,
    message: result.message,
    mop_type: result.mop,
    bank_ref_num: result.bankRef,
    // D3: a cancel completes no payment, so it has no completion time (an empty string, hashed as one)
    payment_completed_at: result.paymentId === '' ? '' : formatCallbackTime(result.at),
  };
  return {
    order_id: result.order.id,
    payment_id: result.paymentId || null,
    order_status: result.status,
    return_url: result.order.return_url,
    callback: { ...fields, hash: computeCallbackHash(fields, result.key) },
  };
}
