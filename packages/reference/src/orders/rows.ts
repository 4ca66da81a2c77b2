import type { Schemas } from '../core/contract.js';
import type { Db } from '../db/db.js';
import { DomainError } from '../core/errors.js';
import type { OrderStatus, PaymentSettlementStatus, PaymentStatus } from '../core/state-machines.js';
import { Params } from '../db/params.js';
import { scopeCondition, type Scope } from '../core/scope.js';
import { merchantOffsetSql } from '../core/merchant-clock.js';

/** Row shapes shared by the order, checkout, payment, refund and settlement services. */

// Stored JSON columns hold what request validation let in, so they have the spec's shapes.
export type Buyer = Schemas['OrderBuyer'];
export type Product = Schemas['Product'];

export interface Invoice {
  number?: string;
  date?: string;
  file?: string;
}

export type AirWaybill = Schemas['AirWaybill'];
/** Stored lower case, as requested (`hosted_payment`, `s2s`); payment reads show it upper case. */
export type CollectionMode = NonNullable<Schemas['CreateOrderRequest']['collection_mode']>;

export interface OrderRow {
  id: string;
  merchant_id: string;
  partner_id: string;
  reference_id: string;
  amount_minor: number;
  currency: string;
  status: OrderStatus;
  status_message: string;
  collection_mode: CollectionMode;
  mop_type: Schemas['MopType'] | null;
  upi_flow_type: 'intent' | 'collection' | null;
  vpa: string | null;
  upi_app_name: string | null;
  intent_uri: string | null;
  buyer: Buyer;
  product: Product;
  invoice: Invoice | null;
  air_waybills: AirWaybill[];
  return_url: string | null;
  is_testing: boolean;
  expires_at: string;
  created_at: string;
  updated_at: string;
  /** The merchant's sandbox clock offset (seconds) when the row was read: the order's now is the gateway's + this. */
  clock_offset_seconds: number;
}

export const ORDER_COLUMNS = `o.id, o.merchant_id, m.partner_id, o.reference_id, o.amount_minor, o.currency, o.status, o.status_message,
  o.collection_mode, o.mop_type, o.upi_flow_type, o.vpa, o.upi_app_name, o.intent_uri, o.buyer, o.product, o.invoice,
  o.air_waybills, o.return_url, o.is_testing, o.expires_at, o.created_at, o.updated_at,
  ${merchantOffsetSql('o.merchant_id')} AS clock_offset_seconds`;

export interface PaymentRow {
  id: string;
  order_id: string;
  merchant_id: string;
  status: PaymentStatus;
  status_message: string;
  mop_type: Schemas['MopType'];
  collection_mode: CollectionMode;
  amount_minor: number;
  currency: string;
  bank_ref_num: string;
  mop_detail: Record<string, unknown>;
  settlement_status: PaymentSettlementStatus;
  settlement_id: string | null;
  auto_complete_outcome: 'success' | 'failure' | null;
  completed_at: string | null;
  created_at: string;
  updated_at: string;
}

export const PAYMENT_COLUMNS = `p.id, p.order_id, p.merchant_id, p.status, p.status_message, p.mop_type, p.collection_mode, p.amount_minor,
  p.currency, p.bank_ref_num, p.mop_detail, p.settlement_status, p.settlement_id, p.auto_complete_outcome, p.completed_at,
  p.created_at, p.updated_at`;

/** Load an order inside the scope (other tenants' orders => 404 ERR_ORDER_404), optionally locking it. */
export async function loadOrder(db: Db, scope: Scope | null, orderId: string, forUpdate = false): Promise<OrderRow> {
  const p = new Params();
  const where = [`o.id = ${p.add(orderId)}`];
  if (scope) where.push(scopeCondition(scope, 'o.merchant_id', p));
  const { rows } = await db.query<OrderRow>(
    `SELECT ${ORDER_COLUMNS} FROM orders o JOIN merchants m ON m.id = o.merchant_id
     WHERE ${where.join(' AND ')}${forUpdate ? ' FOR UPDATE OF o' : ''}`,
    p.values,
  );
  const row = rows[0];
  if (!row) throw new DomainError('ERR_ORDER_404', 'Order not found', { order_id: `no order ${orderId}` });
  return row;
}

/** Payments of an order, oldest first. */
export async function paymentsOfOrder(db: Db, orderId: string, forUpdate = false): Promise<PaymentRow[]> {
  const { rows } = await db.query<PaymentRow>(
    `SELECT ${PAYMENT_COLUMNS} FROM payments p WHERE p.order_id = $1 ORDER BY p.created_at, p.id${forUpdate ? ' FOR UPDATE' : ''}`,
    [orderId],
  );
  return rows;
}
