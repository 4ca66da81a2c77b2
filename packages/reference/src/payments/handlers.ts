import type { Handlers } from '@paygate/server';
import { DEFAULT_PAGE_SIZE } from '../core/pagination.js';
import { getPayment, listPayments } from './service.js';
import { emptyPage, narrowScope, ok, scopeOf, withLinks, type Principal, type HandlerServices } from '../http/handler-kit.js';

/** Payments: read one, list with the seed's filters. */
export function paymentHandlers(rt: HandlerServices): Pick<Handlers<Principal>, 'getPayment' | 'listPayments'> {
  return {
    async getPayment(req, ctx) {
      const scope = await scopeOf(rt, ctx);
      const payment = await getPayment(rt.deps, scope, req.params.payment_id);
      return { status: 200, body: ok('Payment fetched successfully', payment) };
    },
    async listPayments(req, ctx) {
      const scope = await narrowScope(rt, await scopeOf(rt, ctx), req.query.merchant_id);
      const page = scope
        ? await listPayments(rt.deps, scope, req.query)
        : emptyPage<Awaited<ReturnType<typeof listPayments>>['results'][number]>(
            req.query.page,
            req.query.page_size,
            DEFAULT_PAGE_SIZE.payments,
          );
      return {
        status: 200,
        body: ok('Payments fetched successfully', withLinks(rt, ctx, req.query, { ...page, results: page.results.map((r) => r) })),
      };
    },
  };
}
