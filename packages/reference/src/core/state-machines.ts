import type { Schemas } from './contract.js';
import { DomainError, type ErrorCode } from './errors.js';

/** A finite state machine: allowed moves, and the error raised for anything else. */
export interface StateMachine<S extends string> {
  readonly name: string;
  readonly states: readonly S[];
  readonly initial: S;
  canTransition(from: S, to: S): boolean;
  /** Throws a DomainError (machine-specific code, 422) when `from -> to` is not allowed. */
  assertTransition(from: S, to: S): void;
  isTerminal(state: S): boolean;
}

function defineMachine<S extends string>(def: {
  name: string;
  initial: S;
  transitions: Record<S, readonly S[]>;
  errorCode: ErrorCode;
  field: string;
}): StateMachine<S> {
  const states = Object.keys(def.transitions) as S[];
  return {
    name: def.name,
    states,
    initial: def.initial,
    canTransition: (from, to) => (def.transitions[from] ?? []).includes(to),
    assertTransition(from, to) {
      if (!(def.transitions[from] ?? []).includes(to)) {
        throw new DomainError(def.errorCode, `${def.name} cannot move from ${from} to ${to}`, {
          [def.field]: `is ${from}; ${to} is not allowed from this state`,
        });
      }
    },
    isTerminal: (state) => (def.transitions[state] ?? []).length === 0,
  };
}

// The states are the spec's enums (generated types); the machines below add which moves are allowed.
export type OrderStatus = Schemas['OrderStatus'];
export type PaymentStatus = Schemas['PaymentStatus'];
export type RefundStatus = Schemas['RefundStatus'];
export type KycStatus = Schemas['KycStatus'];

export const orderMachine = defineMachine<OrderStatus>({
  name: 'Order',
  initial: 'payment_pending',
  transitions: {
    payment_pending: ['payment_successful', 'payment_failed', 'payment_cancelled'],
    payment_successful: [],
    payment_failed: [],
    payment_cancelled: [],
  },
  errorCode: 'ERR_ORDER_422',
  field: 'status',
});

export const paymentMachine = defineMachine<PaymentStatus>({
  name: 'Payment',
  initial: 'PENDING',
  transitions: { PENDING: ['CAPTURED', 'FAILED'], CAPTURED: [], FAILED: [] },
  errorCode: 'ERR_ORDER_422',
  field: 'payment_status',
});

export const refundMachine = defineMachine<RefundStatus>({
  name: 'Refund',
  initial: 'INITIATED',
  transitions: { INITIATED: ['PROCESSED', 'FAILED'], PROCESSED: [], FAILED: [] },
  errorCode: 'ERR_REFUND_422',
  field: 'refund_status',
});

export const kycMachine = defineMachine<KycStatus>({
  name: 'KYC',
  initial: 'PENDING',
  transitions: { PENDING: ['APPROVED', 'REJECTED'], REJECTED: ['APPROVED'], APPROVED: [] },
  errorCode: 'ERR_MERCHANT_422',
  field: 'kyc_status',
});

/** Settlement status shown in order.payments[].settlement.status, derived from the payment. */
export type PaymentSettlementStatus = Schemas['OrderPayment']['settlement']['status'];

export function settlementStatusFor(status: PaymentStatus, settled: boolean): PaymentSettlementStatus {
  if (status === 'PENDING') return 'pending';
  if (status === 'FAILED') return 'not_applicable';
  return settled ? 'settled' : 'ready_for_settlement';
}

/** Order status reached when its payment ends in `status`. */
export function orderStatusForPayment(
  status: Exclude<PaymentStatus, 'PENDING'>,
): Extract<OrderStatus, 'payment_successful' | 'payment_failed'> {
  return status === 'CAPTURED' ? 'payment_successful' : 'payment_failed';
}
