import { HttpError, type Handlers } from '@paygate/server';
import { DomainError, VALIDATION_MESSAGE } from '../core/errors.js';
import { advanceMerchantClock, readMerchantClock } from '../core/merchant-clock.js';
import { completeCheckoutSession, getCheckoutSession } from '../checkout/service.js';
import { setKycStatus } from '../merchants/service.js';
import { getOrder } from '../orders/service.js';
import { completeRefund } from '../refunds/service.js';
import { completeS2sPayment } from '../payments/s2s.js';
import { requirePartner } from '../core/scope.js';
import { getSettlement, runSettlements } from '../settlements/service.js';
import { merchantDetailsView } from '../merchants/view.js';
import { narrowScope, ok, principalOf, scopeOf, type Principal, type HandlerServices } from '../http/handler-kit.js';

type SandboxOps =
  | 'completeCheckoutSession'
  | 'advanceSandboxClock'
  | 'getSandboxClock'
  | 'setMerchantKycStatus'
  | 'completeOrderPayment'
  | 'completeRefund'
  | 'runSettlements';

/**
 * The merchant whose sandbox clock a request reads or moves (D38 per-merchant sandbox clocks): a merchant credential's own (naming another =>
 * 404); a partner names one of its merchants with `merchant_id` or `X-Merchant-ID` (neither => 400, not its own => 404).
 */
async function clockMerchant(
  rt: HandlerServices,
  ctx: Parameters<Handlers<Principal>['getSandboxClock']>[1],
  merchantId: string | undefined,
): Promise<string> {
  const scope = await narrowScope(rt, await scopeOf(rt, ctx), merchantId);
  if (!scope) throw new HttpError(404, 'ERR_MERCHANT_404', 'Merchant not found', { merchant_id: 'no such merchant' });
  if (scope.merchantId === undefined) {
    throw new HttpError(400, 'ERR_VALIDATION_400', VALIDATION_MESSAGE, {
      merchant_id: 'is required with partner credentials: every merchant has its own sandbox clock',
    });
  }
  return scope.merchantId;
}

/** Sandbox control API (the HTTP app answers 404 for all of it outside sandbox mode). */
export function sandboxHandlers(rt: HandlerServices): Pick<Handlers<Principal>, SandboxOps> {
  return {
    async completeCheckoutSession(req, ctx) {
      const scope = await scopeOf(rt, ctx);
      const sessionId = req.params.session_id;
      const info = await getCheckoutSession(rt.deps, sessionId);
      try {
        await getOrder(rt.deps, scope, info.order_id);
      } catch (err) {
        // someone else's session looks exactly like an unknown one
        if (err instanceof DomainError && err.code === 'ERR_ORDER_404') {
          throw new HttpError(401, 'ERR_AUTH_000', 'Missing credentials', { session_id: 'is invalid' });
        }
        throw err;
      }
      const result = await completeCheckoutSession(rt.deps, sessionId, { outcome: req.body.outcome, mopType: req.body.mop_type });
      return {
        status: 200,
        body: ok('Checkout completed', { redirect: { url: result.return_url, method: 'POST' as const, fields: result.callback } }),
      };
    },
    async advanceSandboxClock(req, ctx) {
      const merchantId = await clockMerchant(rt, ctx, req.body.merchant_id);
      return { status: 200, body: ok('Sandbox clock advanced', await advanceMerchantClock(rt.clock, rt.db, merchantId, req.body.seconds)) };
    },
    async getSandboxClock(req, ctx) {
      const merchantId = await clockMerchant(rt, ctx, req.query.merchant_id);
      return { status: 200, body: ok('Sandbox clock fetched', await readMerchantClock(rt.clock, rt.db, merchantId)) };
    },
    async setMerchantKycStatus(req, ctx) {
      const partnerId = requirePartner(principalOf(ctx));
      const merchant = await setKycStatus(rt.deps, partnerId, req.params.merchant_id, { status: req.body.status, reason: req.body.reason });
      return { status: 200, body: ok('KYC status updated', merchantDetailsView(merchant)) };
    },
    async completeOrderPayment(req, ctx) {
      const scope = await scopeOf(rt, ctx);
      await completeS2sPayment(rt.deps, scope, req.params.order_id, req.body.outcome);
      const order = await getOrder(rt.deps, scope, req.params.order_id);
      return { status: 200, body: ok('Order payment completed', order) };
    },
    async completeRefund(req, ctx) {
      const scope = await scopeOf(rt, ctx);
      const outcome = req.body.outcome === 'processed' ? 'PROCESSED' : 'FAILED';
      const refund = await completeRefund(rt.deps, scope, req.params.refund_id, outcome);
      return { status: 200, body: ok('Refund completed', refund) };
    },
    async runSettlements(req, ctx) {
      const scope = await narrowScope(rt, await scopeOf(rt, ctx), req.body.merchant_id);
      if (!scope) throw new HttpError(404, 'ERR_MERCHANT_404', 'Merchant not found', { merchant_id: 'no such merchant' });
      const ids = await runSettlements(rt.deps, scope, { batchSize: rt.config.settlementBatchSize });
      const settlements = [];
      for (const id of ids) settlements.push(await getSettlement(rt.deps, scope, id));
      return { status: 200, body: ok('Settlement run completed', { settlements }) };
    },
  };
}
