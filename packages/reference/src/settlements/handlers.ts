import type { Handlers } from '@paygate/server';
import { DEFAULT_PAGE_SIZE } from '../core/pagination.js';
import { getSettlement, listSettlements, listSettlementTransactions } from './service.js';
import { emptyPage, narrowScope, ok, scopeOf, withLinks, type Principal, type HandlerServices } from '../http/handler-kit.js';

/** Settlements: read one, list by date range (and merchant), list one's transactions page by page (D113 settlement transactions paged beyond the first 100). */
export function settlementHandlers(
  rt: HandlerServices,
): Pick<Handlers<Principal>, 'getSettlement' | 'listSettlements' | 'listSettlementTransactions'> {
  return {
    async getSettlement(req, ctx) {
      const scope = await scopeOf(rt, ctx);
      const settlement = await getSettlement(rt.deps, scope, req.params.settlement_id);
      return { status: 200, body: ok('Settlement fetched successfully', settlement) };
    },
    async listSettlementTransactions(req, ctx) {
      const scope = await scopeOf(rt, ctx);
      const page = await listSettlementTransactions(rt.deps, scope, req.params.settlement_id, req.query);
      return { status: 200, body: ok('Settlement transactions fetched successfully', withLinks(rt, ctx, req.query, page)) };
    },
    async listSettlements(req, ctx) {
      const scope = await narrowScope(rt, await scopeOf(rt, ctx), req.query.merchant_id);
      const page = scope
        ? await listSettlements(rt.deps, scope, req.query)
        : emptyPage<Awaited<ReturnType<typeof listSettlements>>['results'][number]>(
            req.query.page,
            req.query.page_size,
            DEFAULT_PAGE_SIZE.settlements,
          );
      return {
        status: 200,
        body: ok('Settlements fetched successfully', withLinks(rt, ctx, req.query, { ...page, results: page.results.map((r) => r) })),
      };
    },
  };
}
