import { MopType } from '@paygate/contract';
import { HttpErrorWithPage, type Handlers } from '@paygate/server';
import {
  CHECKOUT_METHOD_LABELS,
  CHECKOUT_PAGE_CSP,
  CHECKOUT_SDK_ETAG,
  checkoutSdkSource,
  REDIRECT_PAGE_CSP,
  renderCheckoutPage,
  renderRedirectForm,
  renderResultPage,
  RESULT_PAGE_CSP,
  type CheckoutMethod,
  type CheckoutPageView,
  type CheckoutResultStatus,
} from './index.js';
import {
  completeCheckoutSession,
  getCheckoutSession,
  holdCardChallenge,
  submitCheckoutAttempt,
  type CheckoutCompletion,
  type CheckoutResult,
  type CheckoutSessionInfo,
} from './service.js';
import { decidePaymentAttempt, type CheckoutForm, type FieldErrors } from './methods/attempt.js';
import { THREE_DS_FAILED_MESSAGE } from './methods/cards.js';
import { upiAppLinks, upiQrIntent, upiQrLabel, upiQrSvg } from './methods/upi-qr.js';
import { formatMoney } from './page.js';
import { renderSessionErrorPage, SESSION_ERROR_PAGE_CSP, sessionProblemOf } from './session-error.js';
import { renderThreeDsChallenge, THREE_DS_PAGE_CSP } from './three-ds.js';
import { htmlHeaders } from './html.js';
import { isDomainError } from '../core/errors.js';
import { normalizeMopType } from '../orders/input.js';
import type { Principal, HandlerServices } from '../http/handler-kit.js';

const ALL_METHODS: readonly CheckoutMethod[] = MopType;

/**
 * An unusable session (ERR_AUTH_000) as a page for browsers and the error envelope for API clients (D75 bad checkout session answered with an HTML page): the
 * scaffold's error mapper picks by the Accept header.
 */
function asSessionErrorPage(err: unknown): unknown {
  if (!isDomainError(err) || err.code !== 'ERR_AUTH_000') return err;
  const page = { contentType: 'text/html', text: renderSessionErrorPage(sessionProblemOf(err.details?.session_id)) };
  return new HttpErrorWithPage(err.status, err.code, err.message, err.details, htmlHeaders(SESSION_ERROR_PAGE_CSP), page);
}

async function sessionOrPage(rt: HandlerServices, sessionId: string): Promise<CheckoutSessionInfo> {
  try {
    return await getCheckoutSession(rt.deps, sessionId);
  } catch (err) {
    throw asSessionErrorPage(err);
  }
}

/** The order's now in ms: the page's countdown and the card expiry check use the merchant's (sandbox) clock. */
const orderNowMs = (info: CheckoutSessionInfo) => Math.floor(info.now / 1000);

/**
 * Every method, or only the one the order names. "QR code" is offered only when the order names it: the UPI panel
 * already shows the same UPI QR code (D127 checkout page formatting and accessibility).
 */
const OFFERED_METHODS: readonly CheckoutMethod[] = ALL_METHODS.filter((m) => m !== 'QR');
function allowedMethodsOf(info: CheckoutSessionInfo): readonly CheckoutMethod[] {
  const named = info.mop_type === null ? undefined : normalizeMopType(info.mop_type);
  return named ? [named] : OFFERED_METHODS;
}

async function pageView(rt: HandlerServices, info: CheckoutSessionInfo, extra: Partial<CheckoutPageView> = {}): Promise<CheckoutPageView> {
  const allowedMethods = allowedMethodsOf(info);
  const qrOrder = {
    merchantId: info.merchant_id,
    merchantName: info.merchant_name,
    orderId: info.order_id,
    referenceId: info.reference_id,
    amountMinor: info.amount_minor,
    currency: info.currency,
  };
  const wantsQr = allowedMethods.includes('UPI') || allowedMethods.includes('QR');
  return {
    sessionId: info.session_id,
    orderId: info.order_id,
    merchantName: info.merchant_name,
    amount: info.amount_text,
    currency: info.currency,
    referenceId: info.reference_id,
    productName: info.product_name ?? '',
    expiresAt: info.expires_at,
    mode: rt.config.sandbox ? 'sandbox' : 'production',
    allowedMethods,
    ...(wantsQr ? { upiQr: { svg: await upiQrSvg(upiQrIntent(qrOrder)), label: upiQrLabel(qrOrder) } } : {}),
    ...(allowedMethods.includes('UPI') ? { upiApps: upiAppLinks(qrOrder) } : {}),
    ...extra,
  };
}

/**
 * What a re-shown page puts back into its fields (D294 checkout field rules in one module): after a field error (`afterFieldError`) the card number too,
 * so the shopper sees the typo and corrects it; after a decline never (another card is what to type). The CVC never.
 */
function keptValues(form: CheckoutForm, afterFieldError = false): NonNullable<CheckoutPageView['values']> {
  return {
    ...(afterFieldError && form.card_number !== undefined ? { card_number: form.card_number } : {}),
    ...(form.vpa !== undefined ? { vpa: form.vpa } : {}),
    ...(form.card_expiry !== undefined ? { card_expiry: form.card_expiry } : {}),
    ...(form.card_name !== undefined ? { card_name: form.card_name } : {}),
    ...(form.bank_code !== undefined ? { bank_code: form.bank_code } : {}),
  };
}

/** The page again with the errors next to their fields (422). */
async function rejectedPage(
  rt: HandlerServices,
  info: CheckoutSessionInfo,
  method: CheckoutMethod,
  form: CheckoutForm,
  errors: FieldErrors,
) {
  const html = renderCheckoutPage(await pageView(rt, info, { selectedMethod: method, errors, values: keptValues(form, true) }), {
    now: () => orderNowMs(info),
  });
  return { status: 422 as const, contentType: 'text/html' as const, body: html, headers: htmlHeaders(CHECKOUT_PAGE_CSP) };
}

/** The finished session: the auto-submitting callback form to return_url, or the result page. */
function finishedPage(result: CheckoutResult) {
  if (result.return_url) {
    const html = renderRedirectForm({ url: result.return_url, fields: { ...result.callback } });
    return { status: 200 as const, contentType: 'text/html' as const, body: html, headers: htmlHeaders(REDIRECT_PAGE_CSP) };
  }
  const html = renderResultPage({
    status: result.order_status as CheckoutResultStatus,
    orderId: result.order_id,
    message: result.callback.message,
  });
  return { status: 200 as const, contentType: 'text/html' as const, body: html, headers: htmlHeaders(RESULT_PAGE_CSP) };
}

/** Public browser surface: the hosted payment page, its form, and the checkout SDK. The session id is the bearer. */
export function checkoutHandlers(
  rt: HandlerServices,
): Pick<Handlers<Principal>, 'getCheckoutPage' | 'submitCheckoutPage' | 'getCheckoutSdk'> {
  const complete = async (sessionId: string, input: CheckoutCompletion) => {
    try {
      return finishedPage(await completeCheckoutSession(rt.deps, sessionId, input));
    } catch (err) {
      throw asSessionErrorPage(err);
    }
  };
  /** Pay with the method's own outcome: a decline with attempts left shows the page again to try another way (D126 a decline on the hosted page keeps the session open). */
  const pay = async (sessionId: string, method: CheckoutMethod, form: CheckoutForm, input: CheckoutCompletion) => {
    let result: Awaited<ReturnType<typeof submitCheckoutAttempt>>;
    try {
      result = await submitCheckoutAttempt(rt.deps, sessionId, input);
    } catch (err) {
      throw asSessionErrorPage(err);
    }
    if (!('retry' in result)) return finishedPage(result);
    const info = await sessionOrPage(rt, sessionId);
    const declined = { message: result.message, attemptsLeft: result.attempts_left };
    const html = renderCheckoutPage(await pageView(rt, info, { selectedMethod: method, values: keptValues(form), declined }), {
      now: () => orderNowMs(info),
    });
    return { status: 200 as const, contentType: 'text/html' as const, body: html, headers: htmlHeaders(CHECKOUT_PAGE_CSP) };
  };
  return {
    async getCheckoutPage(req) {
      const info = await sessionOrPage(rt, req.params.session_id);
      const html = renderCheckoutPage(await pageView(rt, info), { now: () => orderNowMs(info) });
      return { status: 200, contentType: 'text/html', body: html, headers: htmlHeaders(CHECKOUT_PAGE_CSP) };
    },
    async submitCheckoutPage(req) {
      const sessionId = req.params.session_id;
      const form = req.body;
      if (form.outcome === 'cancel') return complete(sessionId, { outcome: 'cancel', mopType: form.mop_type });
      const info = await sessionOrPage(rt, sessionId);
      if (form.three_ds_result !== undefined) {
        const challenge = info.card_challenge;
        if (!challenge)
          return rejectedPage(rt, info, 'CREDIT_CARD', form, {
            card_number: 'The 3-D Secure step has no card waiting: enter the card again',
          });
        const approved = form.three_ds_result === 'approved';
        return pay(sessionId, challenge.mop_type, form, {
          outcome: approved ? 'success' : 'failure',
          mopType: challenge.mop_type,
          mopDetail: { ...challenge.mop_detail },
          ...(approved ? {} : { failureMessage: THREE_DS_FAILED_MESSAGE }),
        });
      }
      const method = normalizeMopType(form.mop_type ?? info.mop_type ?? 'UPI') ?? 'UPI';
      // the sandbox's "Simulate failure" skips the method's fields (D74 checkout page is one form without JavaScript)
      if (form.outcome === 'failure') return complete(sessionId, { outcome: 'failure', mopType: method });
      // an order naming its method offers only that one (D74 checkout page is one form without JavaScript): another posted method is not paid with
      const allowed = allowedMethodsOf(info);
      if (!allowed.includes(method)) {
        const only = allowed.map((m) => CHECKOUT_METHOD_LABELS[m]).join(', ');
        return rejectedPage(rt, info, allowed[0] ?? method, form, { mop_type: `This order can only be paid by ${only}` });
      }
      const attempt = decidePaymentAttempt(method, form, orderNowMs(info));
      switch (attempt.kind) {
        case 'invalid':
          return rejectedPage(rt, info, method, form, attempt.errors);
        case 'three_ds': {
          try {
            await holdCardChallenge(rt.deps, sessionId, { mop_type: attempt.mopType, mop_detail: attempt.card });
          } catch (err) {
            throw asSessionErrorPage(err);
          }
          const html = renderThreeDsChallenge({
            sessionId,
            merchantName: info.merchant_name,
            amountText: formatMoney(info.amount_text, info.currency),
            cardNetwork: attempt.card.card_network,
            cardLast4: attempt.card.card_last4,
          });
          return { status: 200, contentType: 'text/html', body: html, headers: htmlHeaders(THREE_DS_PAGE_CSP) };
        }
        case 'finish':
          return pay(sessionId, method, form, {
            outcome: attempt.success ? 'success' : 'failure',
            mopType: attempt.mopType,
            mopDetail: attempt.mopDetail,
            ...(attempt.failureMessage !== undefined ? { failureMessage: attempt.failureMessage } : {}),
          });
      }
    },
    async getCheckoutSdk() {
      return {
        status: 200,
        contentType: 'application/javascript',
        body: checkoutSdkSource(),
        headers: {
          ETag: CHECKOUT_SDK_ETAG,
          'Cache-Control': 'public, max-age=300, must-revalidate',
          'X-Content-Type-Options': 'nosniff',
          'Cross-Origin-Resource-Policy': 'cross-origin',
        },
      };
    },
  };
}
