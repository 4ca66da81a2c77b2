import { describe, expect, it } from 'vitest';
import { DomainError } from './errors.js';
import {
  kycMachine,
  orderMachine,
  orderStatusForPayment,
  paymentMachine,
  refundMachine,
  settlementStatusFor,
  type StateMachine,
} from './state-machines.js';

function allPairs<S extends string>(m: StateMachine<S>): [S, S][] {
  return m.states.flatMap((a) => m.states.map((b) => [a, b] as [S, S]));
}

function expectExactly<S extends string>(m: StateMachine<S>, allowed: [S, S][], code: string) {
  const key = (p: [S, S]) => `${p[0]}->${p[1]}`;
  const ok = new Set(allowed.map(key));
  for (const pair of allPairs(m)) {
    if (ok.has(key(pair))) {
      expect(m.canTransition(...pair), key(pair)).toBe(true);
      expect(() => m.assertTransition(...pair)).not.toThrow();
    } else {
      expect(m.canTransition(...pair), key(pair)).toBe(false);
      try {
        m.assertTransition(...pair);
        expect.unreachable(key(pair));
      } catch (err) {
        expect(err).toBeInstanceOf(DomainError);
        const e = err as DomainError;
        expect(e.code).toBe(code);
        expect(e.status).toBe(422);
        expect(Object.keys(e.details ?? {})).toHaveLength(1);
      }
    }
  }
}

describe('state machines', () => {
  it('order: pending -> successful | failed | cancelled, all terminal', () => {
    expect(orderMachine.initial).toBe('payment_pending');
    expectExactly(
      orderMachine,
      [
        ['payment_pending', 'payment_successful'],
        ['payment_pending', 'payment_failed'],
        ['payment_pending', 'payment_cancelled'],
      ],
      'ERR_ORDER_422',
    );
    expect(orderMachine.isTerminal('payment_successful')).toBe(true);
    expect(orderMachine.isTerminal('payment_pending')).toBe(false);
  });
  it('payment: PENDING -> CAPTURED | FAILED', () => {
    expect(paymentMachine.initial).toBe('PENDING');
    expectExactly(
      paymentMachine,
      [
        ['PENDING', 'CAPTURED'],
        ['PENDING', 'FAILED'],
      ],
      'ERR_ORDER_422',
    );
  });
  it('refund: INITIATED -> PROCESSED | FAILED', () => {
    expect(refundMachine.initial).toBe('INITIATED');
    expectExactly(
      refundMachine,
      [
        ['INITIATED', 'PROCESSED'],
        ['INITIATED', 'FAILED'],
      ],
      'ERR_REFUND_422',
    );
  });
  it('KYC: PENDING -> APPROVED | REJECTED, REJECTED -> APPROVED, APPROVED terminal', () => {
    expect(kycMachine.initial).toBe('PENDING');
    expectExactly(
      kycMachine,
      [
        ['PENDING', 'APPROVED'],
        ['PENDING', 'REJECTED'],
        ['REJECTED', 'APPROVED'],
      ],
      'ERR_MERCHANT_422',
    );
    expect(kycMachine.isTerminal('APPROVED')).toBe(true);
  });
  it('derives settlement status and order status from the payment', () => {
    expect(settlementStatusFor('PENDING', false)).toBe('pending');
    expect(settlementStatusFor('CAPTURED', false)).toBe('ready_for_settlement');
    expect(settlementStatusFor('CAPTURED', true)).toBe('settled');
    expect(settlementStatusFor('FAILED', false)).toBe('not_applicable');
    expect(orderStatusForPayment('CAPTURED')).toBe('payment_successful');
    expect(orderStatusForPayment('FAILED')).toBe('payment_failed');
  });
});
