/**
 * `paygate trigger` without the command line: for each event type, the API calls that make the gateway emit that
 * event for real (D81 paygate trigger makes real events). Nothing is fabricated: the event is the one the state change writes to the outbox, delivered
 * to every endpoint subscribed to it (e.g. the one `paygate listen` registered).
 */
import { EventType } from '@paygate/contract';
import { must, partnerClient, type GatewayAccess, type PaygateClient } from './gateway-access.js';

type MerchantBody = Parameters<PaygateClient['merchants']['create']>[0];
type OrderBody = Parameters<PaygateClient['orders']['create']>[0];

/** Sample data for the objects a trigger creates (a test merchant and a hosted order). */
function sampleMerchant(tag: string): MerchantBody {
  return {
    settlement_details: {
      bank_account_number: '50100123456789',
      bank_account_name: 'Trigger Test Merchant',
      bank_swift_code: 'HDFCINBBXXX',
      bank_name: 'HDFC Bank',
      bank_branch_name: 'Fort, Mumbai',
      bank_address: 'Manekji Wadia Building, Nanik Motwani Marg, Fort',
      bank_city: 'Mumbai',
      bank_state: 'Maharashtra',
      bank_country: 'IN',
      bank_pincode: '400001',
      routing_number: 'HDFC0000060',
    },
    company_details: {
      legal_name: 'Trigger Test Merchant Private Limited',
      brand_name: `paygate trigger ${tag}`,
      registration_number: 'U74999MH2020PTC123456',
      international_org_type: 'PRIVATE_LIMITED',
      tax_id: '27AAACA1234A1Z5',
      website: 'https://trigger.example',
      monthly_avg_transaction_value: '250000.00',
      monthly_avg_transaction_volume: '1200',
      communication_address: '12 Marine Drive',
      communication_city: 'Mumbai',
      communication_state: 'Maharashtra',
      communication_country: 'IN',
      communication_pincode: '400002',
      same_as_registered_address: true,
      registered_address: '12 Marine Drive',
      registered_city: 'Mumbai',
      registered_state: 'Maharashtra',
      registered_country: 'IN',
      registered_pincode: '400002',
      business_category: 'RETAIL',
      business_mode: 'B2C',
      commodity: 'Test goods',
      payment_terms: 'IMMEDIATE',
      hs_codes: ['520811'],
      category: 'Test',
      description_of_products_and_services: 'Created by paygate trigger in a sandbox.',
      agreement_details: 'Sandbox test merchant.',
      purpose_code: 'P0103',
    },
  };
}

function sampleOrder(): OrderBody {
  return {
    amount: '1500.00',
    currency: 'INR',
    reference_id: `TRIGGER-${Date.now()}`,
    buyer: {
      name: 'Priya Sharma',
      email: 'priya.sharma@example.com',
      phone: '+919876543210',
      address: { line_1: 'Flat 4B, Sea View Apartments', city: 'Mumbai', state: 'Maharashtra', postal_code: '400050' },
    },
    product: {
      name: 'Test item',
      description: 'Created by paygate trigger',
      hs_code: '500720',
      hs_code_description: 'Woven fabrics of silk',
      type_of_goods: 'goods',
    },
    collection_mode: 'hosted_payment',
    mop_type: 'UPI',
  };
}

/** What a trigger created, printed for the user (ids they can look up). */
export type TriggerStep = { what: string; id: string };

interface Ctx {
  access: GatewayAccess;
  partner: PaygateClient;
  steps: TriggerStep[];
}

async function approvedMerchant(ctx: Ctx): Promise<string> {
  const tag = new Date().toISOString();
  const merchant = await must('createMerchant', ctx.access, ctx.partner.merchants.create(sampleMerchant(tag)));
  ctx.steps.push({ what: 'merchant created', id: merchant.data.id });
  await must('setMerchantKycStatus', ctx.access, ctx.partner.sandbox.setMerchantKycStatus(merchant.data.id, { status: 'APPROVED' }));
  ctx.steps.push({ what: 'merchant KYC approved (sandbox)', id: merchant.data.id });
  return merchant.data.id;
}

async function finishedPayment(
  ctx: Ctx,
  merchantId: string,
  outcome: 'success' | 'failure',
): Promise<{ orderId: string; paymentId: string }> {
  const m = partnerClient(ctx.access, merchantId);
  const created = await must('createOrder', ctx.access, m.orders.create(sampleOrder()));
  const order = created.data;
  if (!('session_id' in order)) throw new Error('createOrder answered without a checkout session for a hosted order');
  ctx.steps.push({ what: 'hosted order created', id: order.order_id });
  await must('completeCheckoutSession', ctx.access, m.sandbox.completeCheckoutSession(order.session_id, { outcome, mop_type: 'UPI' }));
  const read = await must('getOrder', ctx.access, m.orders.get(order.order_id));
  const paymentId = read.data.payments[0]?.payment_id ?? '';
  ctx.steps.push({ what: `payment ${outcome === 'success' ? 'captured' : 'failed'} (sandbox checkout completion)`, id: paymentId });
  return { orderId: order.order_id, paymentId };
}

async function finishedRefund(ctx: Ctx, merchantId: string, outcome: 'processed' | 'failed'): Promise<void> {
  const m = partnerClient(ctx.access, merchantId);
  const { paymentId } = await finishedPayment(ctx, merchantId, 'success');
  const refund = await must('createRefund', ctx.access, m.refunds.create({ payment_id: paymentId, refund_amount: '500.00' }));
  ctx.steps.push({ what: 'refund created', id: refund.data.refund_id });
  await must('completeRefund', ctx.access, m.sandbox.completeRefund(refund.data.refund_id, { outcome }));
  ctx.steps.push({ what: `refund ${outcome} (sandbox completion)`, id: refund.data.refund_id });
}

/** The API calls that make each event happen; every EventType has one (checked by the compiler). */
const FLOWS: Record<EventType, (ctx: Ctx) => Promise<void>> = {
  MERCHANT_APPROVED: async (ctx) => {
    await approvedMerchant(ctx);
  },
  PAYMENT_CAPTURED: async (ctx) => {
    await finishedPayment(ctx, await approvedMerchant(ctx), 'success');
  },
  PAYMENT_FAILED: async (ctx) => {
    await finishedPayment(ctx, await approvedMerchant(ctx), 'failure');
  },
  PAYMENT_SETTLED: async (ctx) => {
    const merchantId = await approvedMerchant(ctx);
    await finishedPayment(ctx, merchantId, 'success');
    const run = await must('runSettlements', ctx.access, ctx.partner.sandbox.runSettlements({ merchant_id: merchantId }));
    for (const s of run.data.settlements) ctx.steps.push({ what: 'settlement run (sandbox)', id: s.settlement_id });
  },
  REFUND_PROCESSED: async (ctx) => finishedRefund(ctx, await approvedMerchant(ctx), 'processed'),
  REFUND_FAILED: async (ctx) => finishedRefund(ctx, await approvedMerchant(ctx), 'failed'),
};

export function isEventType(name: string): name is EventType {
  return (EventType as readonly string[]).includes(name);
}

/** Make the gateway emit `eventType`; resolves to what was created, in order. */
export async function triggerEvent(access: GatewayAccess, eventType: EventType): Promise<TriggerStep[]> {
  const ctx: Ctx = { access, partner: partnerClient(access), steps: [] };
  await FLOWS[eventType](ctx);
  return ctx.steps;
}
