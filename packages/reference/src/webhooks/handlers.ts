import type { Handlers } from '@paygate/server';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  enableWebhookEndpoint,
  listWebhookEndpoints,
  type WebhookEndpointView,
} from './endpoints.js';
import { listWebhookDeliveries, redeliverWebhookDelivery } from './delivery-log.js';
import { ok, scopeOf, withLinks, type Principal, type HandlerServices } from '../http/handler-kit.js';

function endpointView(e: WebhookEndpointView) {
  return { ...e, scope: e.merchant_id === null ? ('partner' as const) : ('merchant' as const) };
}

/** Webhook endpoints of the caller (partner-wide, or one merchant's with merchant credentials / X-Merchant-ID). */
export function webhookEndpointHandlers(
  rt: HandlerServices,
): Pick<
  Handlers<Principal>,
  | 'listWebhookEndpoints'
  | 'createWebhookEndpoint'
  | 'deleteWebhookEndpoint'
  | 'enableWebhookEndpoint'
  | 'listWebhookDeliveries'
  | 'redeliverWebhookDelivery'
> {
  return {
    async listWebhookEndpoints(req, ctx) {
      const scope = await scopeOf(rt, ctx);
      const page = await listWebhookEndpoints(rt.deps, scope, req.query);
      const data = withLinks(rt, ctx, req.query, { ...page, results: page.results.map(endpointView) });
      return { status: 200, body: ok('Webhook endpoints fetched successfully', data) };
    },
    async createWebhookEndpoint(req, ctx) {
      const scope = await scopeOf(rt, ctx);
      const created = await createWebhookEndpoint(rt.deps, scope, req.body, {
        allowInsecure: rt.config.sandbox,
        allowPrivateDestinations: rt.config.webhookPrivateDestinations,
      });
      return {
        status: 201,
        body: ok('Webhook endpoint created', { id: created.id, url: created.url, events: created.events, secret: created.secret }),
        headers: { 'Cache-Control': 'no-store' },
      };
    },
    async deleteWebhookEndpoint(req, ctx) {
      const scope = await scopeOf(rt, ctx);
      const deleted = await deleteWebhookEndpoint(rt.deps, scope, req.params.endpoint_id);
      return { status: 200, body: ok('Webhook endpoint deleted', deleted) };
    },
    async enableWebhookEndpoint(req, ctx) {
      const scope = await scopeOf(rt, ctx);
      const enabled = await enableWebhookEndpoint(rt.deps, scope, req.params.endpoint_id);
      return { status: 200, body: ok('Webhook endpoint enabled', endpointView(enabled)) };
    },
    async listWebhookDeliveries(req, ctx) {
      const scope = await scopeOf(rt, ctx);
      const page = await listWebhookDeliveries(rt.deps, scope, req.params.endpoint_id, req.query);
      return { status: 200, body: ok('Webhook deliveries fetched successfully', withLinks(rt, ctx, req.query, page)) };
    },
    async redeliverWebhookDelivery(req, ctx) {
      const scope = await scopeOf(rt, ctx);
      const delivery = await redeliverWebhookDelivery(rt.deps, scope, req.params.delivery_id);
      return { status: 202, body: ok('Webhook delivery scheduled', delivery) };
    },
  };
}
