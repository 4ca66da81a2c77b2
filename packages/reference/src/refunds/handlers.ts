import type { Handlers } from '@paygate/server';
import { DEFAULT_PAGE_SIZE } from '../core/pagination.js';
import { createRefund, getRefund, listRefunds } from './service.js';
import { emptyPage, narrowScope, ok, scopeOf, withLinks, type Principal, type HandlerServices } from '../http/handler-kit.js';

/** Refunds: create (INITIATED), read, list (the list is the bare pagination envelope, as in the seed). */
export function refundHandlers(rt: HandlerServices): Pick<Handlers<Principal>, 'createRefund' | 'getRefund' | 'listRefunds'> {
  return {
    async createRefund(req, ctx) {
      const scope = await scopeOf(rt, ctx);
      const refund = await createRefund(rt.deps, scope, req.body);
      return { status: 200, body: ok('Refund initiated successfully', refund) };
    },
    async getRefund(req, ctx) {
      const scope = await scopeOf(rt, ctx);
      const refund = await getRefund(rt.deps, scope, req.params.refund_id);
      return { status: 200, body: ok('Refund fetched successfully', refund) };
    },
    async listRefunds(req, ctx) {
      const scope = await narrowScope(rt, await scopeOf(rt, ctx), req.query.merchant_id);
      const page = scope
        ? await listRefunds(rt.deps, scope, req.query)
        : emptyPage<Awaited<ReturnType<typeof listRefunds>>['results'][number]>(
            req.query.page,
            req.query.page_size,
            DEFAULT_PAGE_SIZE.refunds,
          );
      return { status: 200, body: withLinks(rt, ctx, req.query, page) };
    },
  };
}
