/** The generated contract: constants and their types (type-level assertions run under `tsc`). */
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  apiDocument,
  ERROR_STATUS,
  ErrorCode,
  EventType,
  idempotentOperationIds,
  type KycStatus,
  MopType,
  operations,
  WEBHOOK_EVENT_TYPES,
  type components,
  type ErrorEnvelope,
  type OperationId,
  type WebhookEventType,
} from './index.js';

describe('@paygate/contract', () => {
  it('exports enums as readonly arrays with union types of the same name', () => {
    expect(MopType).toEqual(['UPI', 'CREDIT_CARD', 'DEBIT_CARD', 'NET_BANKING', 'QR']);
    expectTypeOf<MopType>().toEqualTypeOf<'UPI' | 'CREDIT_CARD' | 'DEBIT_CARD' | 'NET_BANKING' | 'QR'>();
    expectTypeOf<MopType>().toEqualTypeOf<components['schemas']['MopType']>();
    expectTypeOf<KycStatus>().toEqualTypeOf<components['schemas']['KycStatus']>();
    expectTypeOf<EventType>().toEqualTypeOf<WebhookEventType>();
    // @ts-expect-error NETBANKING is only accepted on input (CreateOrderRequestMopType), not a MopType
    const wrong: MopType = 'NETBANKING';
    expect(wrong).toBe('NETBANKING');
  });

  it('exports the error codes with their HTTP status, matching the spec enum', () => {
    expectTypeOf<ErrorCode>().toEqualTypeOf<components['schemas']['ErrorCode']>();
    expect(ERROR_STATUS.ERR_ORDER_404).toBe(404);
    expect(Object.keys(ERROR_STATUS).sort()).toEqual([...ErrorCode]);
    const envelope: ErrorEnvelope<ErrorCode> = { success: false, error: { code: 'ERR_ORDER_404', message: 'Order not found' } };
    expectTypeOf(envelope).toMatchTypeOf<components['schemas']['ErrorEnvelope']>();
  });

  it('derives the idempotent operations from the route table (the Idempotency-Key header)', () => {
    const declaring = operations
      .filter((op) => (op.headerParameters as readonly string[]).includes('idempotency-key'))
      .map((op) => op.operationId);
    expect([...idempotentOperationIds].sort()).toEqual([...declaring].sort());
    expect(idempotentOperationIds.has('createOrder')).toBe(true);
    expect(idempotentOperationIds.has('getOrder')).toBe(false);
    expectTypeOf(idempotentOperationIds).toEqualTypeOf<ReadonlySet<OperationId>>();
  });

  it('embeds the bundled document and lists every event type', () => {
    expect(apiDocument.openapi).toBe('3.1.0');
    expect(WEBHOOK_EVENT_TYPES).toEqual([...EventType].sort());
  });
});
