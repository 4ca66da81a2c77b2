import type { Handlers } from '@paygate/server';
import { checkoutHandlers } from './checkout/handlers.js';
import { documentHandlers } from './documents/handlers.js';
import { merchantHandlers } from './merchants/handlers.js';
import { orderHandlers } from './orders/handlers.js';
import { paymentHandlers } from './payments/handlers.js';
import { refundHandlers } from './refunds/handlers.js';
import { sandboxHandlers } from './sandbox/handlers.js';
import { settlementHandlers } from './settlements/handlers.js';
import type { HandlerServices, Principal } from './http/handler-kit.js';
import { webhookEndpointHandlers } from './webhooks/handlers.js';

export type { Principal } from './http/handler-kit.js';

/**
 * Every operation of the spec, served from stored state. Typed as the generated `Handlers`, so the compiler proves
 * that each operation is implemented and answers only with statuses and bodies the spec declares.
 */
export function createHandlers(rt: HandlerServices): Handlers<Principal> {
  return {
    ...merchantHandlers(rt),
    ...orderHandlers(rt),
    ...paymentHandlers(rt),
    ...refundHandlers(rt),
    ...settlementHandlers(rt),
    ...webhookEndpointHandlers(rt),
    ...sandboxHandlers(rt),
    ...checkoutHandlers(rt),
    ...documentHandlers(rt),
  };
}
