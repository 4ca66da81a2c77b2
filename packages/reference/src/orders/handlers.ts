import type { Handlers } from '@paygate/server';
import { attachOrderDocument, createOrder, getOrder, patchOrder } from './service.js';
import { requireMerchant } from '../core/scope.js';
import { claimedScopeOf, ok, scopeOf, toUpload, withScopeErrors, type Principal, type HandlerServices } from '../http/handler-kit.js';

type OrderOps = 'createOrder' | 'getOrder' | 'updateOrder' | 'uploadOrderDocument';

/** Orders: creation (hosted session or s2s UPI), read, corrections and documents, within the caller's scope. */
export function orderHandlers(rt: HandlerServices): Pick<Handlers<Principal>, OrderOps> {
  return {
    async createOrder(req, ctx) {
      const { scope, ownerUnchecked } = claimedScopeOf(ctx);
      const merchantId = requireMerchant(scope);
      const created = await withScopeErrors(ctx, () =>
        createOrder(rt.deps, merchantId, req.body, {
          isTesting: rt.config.sandbox,
          ownerPartnerId: ownerUnchecked ? scope.partnerId : undefined,
        }),
      );
      const message = 'Order created successfully';
      switch (created.kind) {
        case 'hosted':
          return { status: 200, body: ok(message, { session_id: created.session_id, order_id: created.order_id }) };
        case 'intent':
          return { status: 200, body: ok(message, { intent_uri: created.intent_uri, order_id: created.order_id }) };
        case 'collection':
          return { status: 200, body: ok(message, { order_id: created.order_id, message: created.message }) };
      }
    },
    async getOrder(req, ctx) {
      const scope = await scopeOf(rt, ctx);
      const order = await getOrder(rt.deps, scope, req.params.order_id);
      return { status: 200, body: ok('Order fetched successfully', order) };
    },
    async updateOrder(req, ctx) {
      const scope = await scopeOf(rt, ctx);
      const updated = await patchOrder(rt.deps, scope, req.params.order_id, req.body);
      return { status: 200, body: ok('Order updated successfully', ok('Order details updated', updated)) };
    },
    async uploadOrderDocument(req, ctx) {
      const scope = await scopeOf(rt, ctx);
      const order = await attachOrderDocument(rt.deps, rt.documents, scope, req.params.order_id, {
        identifier: req.body.identifier,
        documentType: req.body.document_type,
        file: toUpload(req.body.file),
      });
      return { status: 200, body: ok('Document uploaded successfully', order) };
    },
  };
}
