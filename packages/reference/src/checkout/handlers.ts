import { MopType } from '@paygate/contract';
import type { Handlers } from '@paygate/server';
import {
  CHECKOUT_PAGE_CSP,
  CHECKOUT_SDK_ETAG,
  checkoutSdkSource,
  REDIRECT_PAGE_CSP,
  renderCheckoutPage,
  renderRedirectForm,
  renderResultPage,
  RESULT_PAGE_CSP,
  type CheckoutMethod,
  type CheckoutResultStatus,
} from './index.js';
import { completeCheckoutSession, getCheckoutSession } from './service.js';
import { type Principal, type HandlerRuntime } from '../http/handler-kit.js';

const ALL_METHODS: readonly CheckoutMethod[] = MopType;

/** Security headers of every hosted checkout HTML response (the CSP is per page). */
export function htmlHeaders(csp: string): Record<string, string> {
  return {
    'Content-Security-Policy': csp,
    'Cache-Control': 'no-store',
    'Referrer-Policy': 'no-referrer',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
  };
}

/** Public browser surface: the hosted payment page, its form, and the checkout SDK. The session id is the bearer. */
export function checkoutHandlers(rt: HandlerRuntime): Pick<Handlers<Principal>, 'getCheckoutPage' | 'submitCheckoutPage' | 'getCheckoutSdk'> {
  return {
    async getCheckoutPage(req) {
      const info = await getCheckoutSession(rt.deps, req.params.session_id);
      const mop = info.mop_type as CheckoutMethod | null;
      const html = renderCheckoutPage(
        {
          sessionId: info.session_id,
          orderId: info.order_id,
          merchantName: info.merchant_name,
          amount: info.amount_text,
          currency: info.currency,
          referenceId: info.reference_id,
          productName: info.product_name ?? '',
          expiresAt: info.expires_at,
          mode: rt.config.sandbox ? 'sandbox' : 'production',
          allowedMethods: mop && ALL_METHODS.includes(mop) ? [mop] : ALL_METHODS,
        },
        // the merchant's sandbox clock may run ahead of the wall clock: count down from the order's "now"
        { now: () => Math.floor(info.now / 1000) },
      );
      return { status: 200, contentType: 'text/html', body: html, headers: htmlHeaders(CHECKOUT_PAGE_CSP) };
    },
    async submitCheckoutPage(req) {
      const result = await completeCheckoutSession(rt.deps, req.params.session_id, { outcome: req.body.outcome, mopType: req.body.mop_type });
      if (result.return_url) {
        const html = renderRedirectForm({ url: result.return_url, fields: { ...result.callback } });
        return { status: 200, contentType: 'text/html', body: html, headers: htmlHeaders(REDIRECT_PAGE_CSP) };
      }
      const html = renderResultPage({
        status: result.order_status as CheckoutResultStatus,
        orderId: result.order_id,
        message: result.callback.message,
      });
      return { status: 200, contentType: 'text/html', body: html, headers: htmlHeaders(RESULT_PAGE_CSP) };
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
