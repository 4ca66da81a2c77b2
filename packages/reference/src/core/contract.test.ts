/**
 * Type-level tests: the reference gateway's views are typed by the generated contract, so a spec change a view does
 * not follow fails to compile (`npm run typecheck`, part of `npm test`) instead of surfacing at runtime.
 */
import { describe, expectTypeOf, it } from 'vitest';
import { merchantDetailsView } from '../merchants/view.js';
import { orderPaymentView, orderView, paymentOrderView } from '../orders/view.js';
import { paymentListItemView, paymentView } from '../payments/view.js';
import type { RefundRow } from '../refunds/view.js';
import { refundCreatedView, refundView } from '../refunds/view.js';
import type { CallbackFields } from '../checkout/service.js';
import type { Schemas } from './contract.js';

describe('views return the spec schemas', () => {
  it('each view returns exactly its schema type', () => {
    expectTypeOf(refundView).returns.toEqualTypeOf<Schemas['Refund']>();
    expectTypeOf(refundCreatedView).returns.toEqualTypeOf<Schemas['RefundCreated']>();
    expectTypeOf(paymentView).returns.toEqualTypeOf<Schemas['Payment']>();
    expectTypeOf(paymentListItemView).returns.toEqualTypeOf<Schemas['PaymentListItem']>();
    expectTypeOf(orderView).returns.toEqualTypeOf<Schemas['Order']>();
    expectTypeOf(orderPaymentView).returns.toEqualTypeOf<Schemas['OrderPayment']>();
    expectTypeOf(paymentOrderView).returns.toEqualTypeOf<Schemas['PaymentOrder']>();
    expectTypeOf(merchantDetailsView).returns.toEqualTypeOf<Schemas['MerchantDetails']>();
    expectTypeOf<CallbackFields>().toEqualTypeOf<Schemas['ReturnUrlCallback']>();
  });

  it('a new required field in a response schema does not compile until the view supplies it', () => {
    // The Refund schema as it would be generated after the spec gains a required field.
    type RefundWithNewRequiredField = Schemas['Refund'] & { refund_reason: string };
    // @ts-expect-error refundView does not supply refund_reason: the reference fails to compile until it does
    const stale: (row: RefundRow) => RefundWithNewRequiredField = refundView;
    // A view that supplies it compiles.
    const updated: (row: RefundRow) => RefundWithNewRequiredField = (row) => ({ ...refundView(row), refund_reason: 'customer request' });
    expectTypeOf(stale).toEqualTypeOf(updated);
  });

  it('an enum value the spec drops does not compile where the view still produces it', () => {
    // The refund status enum as it would be generated after the spec dropped FAILED.
    type NarrowedRefund = Omit<Schemas['Refund'], 'refund_status'> & { refund_status: 'INITIATED' | 'PROCESSED' };
    // @ts-expect-error the view's refund_status may be FAILED, which the narrowed schema no longer allows
    const narrowed: (row: RefundRow) => NarrowedRefund = refundView;
    expectTypeOf(narrowed).toBeFunction();
  });
});
