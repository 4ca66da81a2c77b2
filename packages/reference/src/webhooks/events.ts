import type { EventType, PaymentCapturedEvent, RefundFailedEvent, RefundProcessedEvent } from '@paygate/contract';
import { formatEventTime, formatEventTimeZ, formatIso, type Micros } from '../core/clock.js';

/** Webhook envelope (seed "Webhook events"). */
export interface EventEnvelope<T extends string = EventType, D = unknown> {
  event_type: T;
  event_time: string;
  version: '1.0';
  sequence_number: string;
  data: D;
}

export { EventType } from '@paygate/contract';

export interface PaymentFailedData {
  status: 'FAILED';
  message: string;
  mop_type: string;
  order_id: string;
  payment_id: string;
  bank_ref_num: string;
  payment_completed_at: string;
}

export interface PaymentSettledItem {
  settlement_id: string;
  settlement_utr: string;
  settlement_done_at: string;
  forex_rate: number;
  settlement_amount: number;
}

export interface PaymentSettledData {
  settlements: PaymentSettledItem[];
}

export interface MerchantApprovedData {
  approved_at: string;
  merchant_id: string;
  legal_name: string;
  trade_name: string;
}

/** PAYMENT_FAILED: event_time `YYYY-MM-DD HH:MM:SSZ`; payment_completed_at ISO 8601. */
export function paymentFailedEvent(
  sequenceNumber: string,
  at: Micros,
  p: Omit<PaymentFailedData, 'status' | 'payment_completed_at'> & { completedAt: Micros },
): EventEnvelope<'PAYMENT_FAILED', PaymentFailedData> {
  return {
    event_type: 'PAYMENT_FAILED',
    event_time: formatEventTimeZ(at),
    version: '1.0',
    sequence_number: sequenceNumber,
    data: {
      status: 'FAILED',
      message: p.message,
      mop_type: p.mop_type,
      order_id: p.order_id,
      payment_id: p.payment_id,
      bank_ref_num: p.bank_ref_num,
      payment_completed_at: formatIso(p.completedAt),
    },
  };
}

/** PAYMENT_SETTLED: event_time `YYYY-MM-DD HH:MM:SS`. */
export function paymentSettledEvent(
  sequenceNumber: string,
  at: Micros,
  settlements: PaymentSettledItem[],
): EventEnvelope<'PAYMENT_SETTLED', PaymentSettledData> {
  return {
    event_type: 'PAYMENT_SETTLED',
    event_time: formatEventTime(at),
    version: '1.0',
    sequence_number: sequenceNumber,
    data: { settlements },
  };
}

/** MERCHANT_APPROVED: event_time `YYYY-MM-DD HH:MM:SS`; trade_name = company brand name. */
export function merchantApprovedEvent(
  sequenceNumber: string,
  at: Micros,
  p: { merchantId: string; legalName: string; tradeName: string },
): EventEnvelope<'MERCHANT_APPROVED', MerchantApprovedData> {
  return {
    event_type: 'MERCHANT_APPROVED',
    event_time: formatEventTime(at),
    version: '1.0',
    sequence_number: sequenceNumber,
    data: { approved_at: formatIso(at), merchant_id: p.merchantId, legal_name: p.legalName, trade_name: p.tradeName },
  };
}

/** PAYMENT_CAPTURED (Paygate extension, D77): event_time `YYYY-MM-DD HH:MM:SSZ`, like PAYMENT_FAILED. */
export function paymentCapturedEvent(
  sequenceNumber: string,
  at: Micros,
  p: Omit<PaymentCapturedEvent['data'], 'status' | 'payment_completed_at'> & { completedAt: Micros },
): PaymentCapturedEvent {
  const { completedAt, ...data } = p;
  return {
    event_type: 'PAYMENT_CAPTURED',
    event_time: formatEventTimeZ(at),
    version: '1.0',
    sequence_number: sequenceNumber,
    data: { status: 'CAPTURED', ...data, payment_completed_at: formatIso(completedAt) },
  };
}

/** The refund a REFUND_PROCESSED / REFUND_FAILED event announces (the row after its final update). */
export interface FinishedRefund {
  id: string;
  payment_id: string;
  amount: number;
  message: string;
  bank_ref_num: string | null;
}

/**
 * REFUND_PROCESSED or REFUND_FAILED (Paygate extensions, D77) for a refund that reached that status at `at`:
 * event_time `YYYY-MM-DD HH:MM:SSZ`.
 */
export function refundFinishedEvent(
  sequenceNumber: string,
  at: Micros,
  outcome: 'PROCESSED' | 'FAILED',
  r: FinishedRefund,
): RefundProcessedEvent | RefundFailedEvent {
  const envelope = { event_time: formatEventTimeZ(at), version: '1.0', sequence_number: sequenceNumber } as const;
  const common = { message: r.message, refund_id: r.id, payment_id: r.payment_id, refund_amount: r.amount };
  if (outcome === 'PROCESSED') {
    return {
      event_type: 'REFUND_PROCESSED',
      ...envelope,
      data: { status: 'PROCESSED', ...common, bank_ref_num: r.bank_ref_num ?? '', refunded_at: formatIso(at) },
    };
  }
  return { event_type: 'REFUND_FAILED', ...envelope, data: { status: 'FAILED', ...common, failed_at: formatIso(at) } };
}
