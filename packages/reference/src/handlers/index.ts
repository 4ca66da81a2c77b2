import type { Handlers } from '@paygate/server';
import type { ReferenceRuntime } from '../runtime.js';
import { checkoutHandlers } from './checkout.js';
import { merchantHandlers } from './merchants.js';
import { orderHandlers } from './orders.js';
import { paymentHandlers } from './payments.js';
import { refundHandlers } from './refunds.js';
import { sandboxHandlers } from './sandbox.js';
import { settlementHandlers } from './settlements.js';
import type { Principal } from './shared.js';
import { webhookEndpointHandlers } from './webhook-endpoints.js';

export type { Principal } from './shared.js';
export { toHttpError } from './shared.js';

/**
 * Every operation of the spec, served from stored state. Typed as the generated `Handlers`, so the compiler proves
 * that each operation is implemented and answers only with statuses and bodies the spec declares.
 */
export function createHandlers(rt: ReferenceRuntime): Handlers<Principal> {
  return {
    ...merchantHandlers(rt),
    ...orderHandlers(rt),
    ...paymentHandlers(rt),
    ...refundHandlers(rt),
    ...settlementHandlers(rt),
    ...webhookEndpointHandlers(rt),
    ...sandboxHandlers(rt),
    ...checkoutHandlers(rt),
  };
}
