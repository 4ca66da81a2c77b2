import { OrderDocumentUploadDocumentType } from '@paygate/contract';
import type { Schemas } from '../core/contract.js';
import type { Db } from '../db/db.js';
import { parseTimestamptz } from '../db/types.js';
import { cacheableRead } from '../db/read-cache.js';
import { batchableRead } from '../db/read-batch.js';
import { DomainError, validationError } from '../core/errors.js';
import { newSessionId } from '../core/ids.js';
import { normalizeOrderInput, type CreateOrderInput, type NormalizedOrder } from './input.js';
import { orderMachine } from '../core/state-machines.js';
import { addSeconds, formatIso } from '../core/clock.js';
import { buildUpiIntentUri, SANDBOX_VPA_OUTCOME } from './upi.js';
import { orderView, type OrderPayment, type OrderPaymentViewRow, type OrderViewRow } from './view.js';
import { ID_ATTEMPTS, ISSUED_ID_COLUMNS, noFreeId, type ServiceDeps } from '../core/deps.js';
import { storeDocument, type DocumentStore, type UploadedFile } from '../core/documents.js';
import { cancelOrder, createPendingPayment, isExpired, orderNow, STATUS_MESSAGE } from './lifecycle.js';
import { latestNowSql, merchantNowSql, merchantOffsetSql, shifted } from '../core/merchant-clock.js';
import { loadOrder, PAYMENT_COLUMNS, type OrderRow } from './rows.js';
import { notPartnersMerchant, type Scope } from '../core/scope.js';
import { insertInto, insertSql, type InsertStatement, type ParamsOf, Placeholders, param, sql, VALUE } from '../db/insert.js';

/** Checkout sessions and unpaid orders live 15 minutes. */
export const ORDER_TTL_SECONDS = 15 * 60;

/** The gateway's UPI collection address for a merchant (payee of intent links). */
export function gatewayPayeeVpa(merchantId: string): string {
  return `pg.${merchantId}@paygate`;
}

/**
 * The orders row a new order writes: ONE column list for both ways an order is created (D460, "An INSERT is built
 * from its table's column list"): the s2s order binds it as it is, the hosted order's statement overrides the
 * columns it takes from its CTEs (the reserved id, the merchant's now).
 */
const ORDER_COLUMNS = {
  id: VALUE,
  merchant_id: VALUE,
  reference_id: VALUE,
  amount_minor: VALUE,
  currency: VALUE,
  status: sql("'payment_pending'"),
  status_message: VALUE,
  collection_mode: VALUE,
  mop_type: VALUE,
  upi_flow_type: VALUE,
  vpa: VALUE,
  upi_app_name: VALUE,
  intent_uri: VALUE,
  buyer: VALUE,
  product: VALUE,
  invoice: VALUE,
  return_url: VALUE,
  is_testing: VALUE,
  expires_at: VALUE,
  created_at: VALUE,
  updated_at: param('created_at'),
} as const;

/** A new order, nothing when its reference_id is taken (no row back). */
const INSERT_ORDER = insertInto('orders', ORDER_COLUMNS, {
  tail: `ON CONFLICT ON CONSTRAINT orders_reference_unique DO NOTHING
       RETURNING id`,
});

/** The merchant an order is created for, with its sandbox clock; `owned`: only if it is the partner's ($2). */
const ORDER_MERCHANT = `SELECT kyc_status, company_details->>'brand_name' AS brand_name, partner_id, encryption_key_version,
              ${merchantOffsetSql('id')} AS clock_offset_seconds
       FROM merchants WHERE id = $1`;
const ORDER_MERCHANT_SQL = { any: ORDER_MERCHANT, owned: `${ORDER_MERCHANT} AND partner_id = $2` };

/** A hosted order's checkout session, from its order `o` and merchant `m`: the checkout_sessions row's one column list (D460, "An INSERT is built from its table's column list"). */
const SESSION_COLUMNS = {
  id: param('session_id'),
  order_id: sql('o.id'),
  expires_at: sql('o.expires_at'),
  created_at: sql('o.created_at'),
  encryption_key_version: sql('m.encryption_key_version'),
} as const;

/** The parameters of the hosted order's statement: the order's columns it binds, and what its CTEs use. */
type HostedOrderParams =
  | Exclude<ParamsOf<typeof ORDER_COLUMNS>, 'intent_uri' | 'expires_at' | 'created_at'>
  | 'now'
  | 'session_id'
  | 'owner';

/**
 * A hosted order in ONE statement (D175 a hosted order is one statement): the merchant (scope, KYC, sandbox clock), the order id's reservation, the
 * order and its checkout session. Outside an idempotent request's transaction it is one round trip and no explicit
 * transaction (a statement is atomic on its own); inside one it joins it. Parameters are named (`now`: the
 * gateway's now; `id`: the order id, drawn, reserved here; `owner`: the partner, when it must own the merchant) and
 * numbered by {@link Placeholders}.
 *
 * The id is reserved only for an approved merchant whose reference_id is free, so a 409 or 422 reserves nothing
 * (`reference_taken` and the reservation read the same snapshot); only a concurrent twin reference_id committed in
 * between leaves a reserved id unused, which costs nothing (ids are never drawn twice anyway). `at` is the merchant's
 * now (gateway clock plus its sandbox offset): the order's created_at, and its expiry 15 minutes later; the session
 * takes both from the order row, and the callback key version current now (D37 callbacks signed with the session's key version).
 */
function hostedOrder(owned: boolean): InsertStatement<HostedOrderParams> {
  const ph = new Placeholders<HostedOrderParams>();
  const $ = ph.ref;
  const text = `WITH m AS (
    SELECT kyc_status, encryption_key_version, ${$('now')}::timestamptz + ${merchantOffsetSql('id')} * interval '1 second' AS at
    FROM merchants WHERE id = ${$('merchant_id')}${owned ? ` AND partner_id = ${$('owner')}` : ''}
  ), taken AS (
    SELECT EXISTS (SELECT 1 FROM orders WHERE merchant_id = ${$('merchant_id')} AND reference_id = ${$('reference_id')}) AS reference_taken
  ), i AS (
    ${insertSql('issued_ids', ISSUED_ID_COLUMNS, ph, {
      override: { kind: sql("'order'") },
      from: "m, taken WHERE m.kyc_status = 'APPROVED' AND NOT taken.reference_taken",
      tail: 'ON CONFLICT DO NOTHING RETURNING id',
    })}
  ), o AS (
    ${insertSql('orders', ORDER_COLUMNS, ph, {
      override: {
        id: sql('i.id'),
        intent_uri: sql('NULL'),
        expires_at: sql(`m.at + interval '${ORDER_TTL_SECONDS} seconds'`),
        created_at: sql('m.at'),
        updated_at: sql('m.at'),
      },
      from: 'i, m',
      tail: `ON CONFLICT ON CONSTRAINT orders_reference_unique DO NOTHING
    RETURNING id, expires_at, created_at`,
    })}
  ), s AS (
    ${insertSql('checkout_sessions', SESSION_COLUMNS, ph, { from: 'o, m', tail: 'RETURNING order_id' })}
  )
  SELECT m.kyc_status, taken.reference_taken, EXISTS (SELECT 1 FROM i) AS reserved, EXISTS (SELECT 1 FROM s) AS created FROM m, taken`;
  return { text, values: (row) => ph.values(row) };
}
const HOSTED_ORDER = { any: hostedOrder(false), owned: hostedOrder(true) };
/** Exported for the benchmark's pg-alone baseline (bench/lib/post-baseline.ts), which sends this very statement. */
export const HOSTED_ORDER_SQL = { any: HOSTED_ORDER.any.text, owned: HOSTED_ORDER.owned.text };

export type CreateOrderResult =
  | { kind: 'hosted'; order_id: string; session_id: string }
  | { kind: 'intent'; order_id: string; intent_uri: string }
  | { kind: 'collection'; order_id: string; message: string };

/**
 * Create an order for `merchantId` (must be APPROVED, else 422 ERR_MERCHANT_422). reference_id reuse => 409
 * ERR_ORDER_409. Hosted: a 15-minute checkout session. s2s: a PENDING UPI payment plus an intent link or a collect
 * request; sandbox VPAs success@paygate / failure@paygate complete by themselves (worker).
 */
export async function createOrder(
  deps: ServiceDeps,
  merchantId: string,
  input: CreateOrderInput,
  options: { isTesting: boolean; ownerPartnerId?: string | undefined },
): Promise<CreateOrderResult> {
  const n = normalizeOrderInput(input);
  // a partner's X-Merchant-ID is checked here, in the merchant read, not by a query of its own (claimScope, D67)
  const owner = options.ownerPartnerId;
  if (n.collectionMode === 'hosted_payment') return createHostedOrder(deps, merchantId, input, n, options);
  return deps.db.transaction(async (tx) => {
    const { rows: merchants } = await tx.query<{
      kyc_status: string;
      brand_name: string;
      partner_id: string;
      encryption_key_version: number;
      clock_offset_seconds: number;
    }>(owner !== undefined ? ORDER_MERCHANT_SQL.owned : ORDER_MERCHANT_SQL.any, owner !== undefined ? [merchantId, owner] : [merchantId]);
    const merchant = merchants[0];
    if (!merchant) throw owner !== undefined ? notPartnersMerchant() : new DomainError('ERR_MERCHANT_404', 'Merchant not found');
    if (merchant.kyc_status !== 'APPROVED') {
      throw notApproved(merchant.kyc_status);
    }
    const at = shifted(deps.clock.now(), merchant.clock_offset_seconds);
    const now = formatIso(at);
    const orderId = await deps.ids.next(tx, 'order');
    const intentUri =
      n.upiFlowType === 'intent'
        ? buildUpiIntentUri({
            app: n.upiAppName,
            payeeVpa: gatewayPayeeVpa(merchantId),
            payeeName: merchant.brand_name,
            amountMinor: n.amountMinor,
            currency: n.currency,
            orderId,
            note: `Payment for order ${n.referenceId}`.slice(0, 80),
          })
        : null;
    const expiresAt = formatIso(addSeconds(at, ORDER_TTL_SECONDS));
    const orderValues = INSERT_ORDER.values({
      id: orderId,
      merchant_id: merchantId,
      ...orderContent(n, n.collectionMode === 's2s' ? n.upiAppName : (input.upi_app_name ?? null)),
      intent_uri: intentUri,
      is_testing: options.isTesting,
      expires_at: expiresAt,
      created_at: now,
    });
    const { rows } = await tx.query<{ id: string }>(INSERT_ORDER.text, orderValues);
    if (rows.length === 0) throw alreadyUsed();
    const order = {
      id: orderId,
      merchant_id: merchantId,
      amount_minor: n.amountMinor,
      currency: n.currency,
      collection_mode: n.collectionMode,
    };

    if (n.upiFlowType === 'intent') {
      await createPendingPayment(tx, deps, order, { mopType: 'UPI', mopDetail: {}, message: STATUS_MESSAGE.intentPending, at });
      return { kind: 'intent', order_id: orderId, intent_uri: intentUri as string };
    }
    const vpa = n.vpa as string;
    const auto = options.isTesting ? (SANDBOX_VPA_OUTCOME[vpa.toLowerCase()] ?? null) : null;
    await createPendingPayment(tx, deps, order, {
      mopType: 'UPI',
      mopDetail: { upi_id: vpa },
      message: STATUS_MESSAGE.collectPending,
      autoComplete: auto,
      at,
    });
    return { kind: 'collection', order_id: orderId, message: `Collection request sent to ${vpa}` };
  });
}

const alreadyUsed = () =>
  new DomainError('ERR_ORDER_409', 'An order with this reference_id already exists', {
    reference_id: 'is already used by another order',
  });

const notApproved = (kycStatus: string) =>
  new DomainError('ERR_MERCHANT_422', 'Merchant is not approved to accept payments', { merchant_id: `KYC status is ${kycStatus}` });

/**
 * The columns of a new order that come from the request, the same for both INSERTs (server-to-server and hosted), so
 * a new column of that kind is one edit (D460 an INSERT built from its table's column list).
 */
function orderContent(n: NormalizedOrder, upiAppName: string | null) {
  return {
    reference_id: n.referenceId,
    amount_minor: n.amountMinor,
    currency: n.currency,
    status_message: STATUS_MESSAGE.orderPending,
    collection_mode: n.collectionMode,
    mop_type: n.mopType,
    upi_flow_type: n.upiFlowType,
    vpa: n.vpa,
    upi_app_name: upiAppName,
    buyer: JSON.stringify(n.buyer),
    product: JSON.stringify(n.product),
    invoice: n.invoice ? JSON.stringify(n.invoice) : null,
    return_url: n.returnUrl,
  };
}

/**
 * The parameters of {@link HOSTED_ORDER_SQL} for one order (also what the benchmark's pg-alone baseline binds, so it
 * sends exactly the gateway's statement: D174).
 */
export function hostedOrderValues(o: {
  orderId: string;
  merchantId: string;
  input: CreateOrderInput;
  /** `normalizeOrderInput(input)` */
  n: NormalizedOrder;
  isTesting: boolean;
  /** The gateway's now (ISO). */
  now: string;
  sessionId: string;
  owner: string | undefined;
}): unknown[] {
  const n = o.n;
  const row = {
    id: o.orderId,
    merchant_id: o.merchantId,
    ...orderContent(n, o.input.upi_app_name ?? null),
    is_testing: o.isTesting,
    now: o.now,
    session_id: o.sessionId,
    owner: o.owner,
  };
  return o.owner !== undefined ? HOSTED_ORDER.owned.values(row) : HOSTED_ORDER.any.values(row);
}

/** The hosted order of {@link createOrder}: one statement (D175 a hosted order is one statement), drawn again on an id collision. */
async function createHostedOrder(
  deps: ServiceDeps,
  merchantId: string,
  input: CreateOrderInput,
  n: NormalizedOrder,
  options: { isTesting: boolean; ownerPartnerId?: string | undefined },
): Promise<CreateOrderResult> {
  const owner = options.ownerPartnerId;
  const sessionId = newSessionId();
  const now = formatIso(deps.clock.now());
  for (let attempt = 0; attempt < ID_ATTEMPTS; attempt++) {
    const orderId = deps.ids.draw('order');
    const values = hostedOrderValues({ orderId, merchantId, input, n, isTesting: options.isTesting, now, sessionId, owner });
    const { rows } = await deps.db.query<{ kyc_status: string; reference_taken: boolean; reserved: boolean; created: boolean }>(
      owner !== undefined ? HOSTED_ORDER_SQL.owned : HOSTED_ORDER_SQL.any,
      values,
    );
    const row = rows[0];
    if (!row) throw owner !== undefined ? notPartnersMerchant() : new DomainError('ERR_MERCHANT_404', 'Merchant not found');
    if (row.kyc_status !== 'APPROVED') throw notApproved(row.kyc_status);
    if (row.reference_taken) throw alreadyUsed();
    if (!row.reserved) continue; // the id is taken: draw another
    if (!row.created) throw alreadyUsed(); // a twin reference_id committed meanwhile
    return { kind: 'hosted', order_id: orderId, session_id: sessionId };
  }
  throw noFreeId('order');
}

/** Payments of an order with their settlement (UTR, completion date). */
export async function orderPayments(db: Db, orderId: string): Promise<OrderPayment[]> {
  const { rows } = await db.query<OrderPayment>(
    `SELECT ${PAYMENT_COLUMNS}, s.utr_number, s.completed_at AS settlement_completed_at
     FROM payments p LEFT JOIN settlements s ON s.id = p.settlement_id AND s.status = 'completed'
     WHERE p.order_id = $1 ORDER BY p.created_at, p.id`,
    [orderId],
  );
  return rows;
}

/** Apply the lazy 15-minute expiry if due (locks and re-checks the order). Returns the current order. */
export async function touchOrder(deps: ServiceDeps, scope: Scope | null, orderId: string): Promise<OrderRow> {
  const order = await loadOrder(deps.db, scope, orderId);
  if (!isExpired(order, orderNow(deps, order))) return order;
  return deps.db.transaction(async (tx) => {
    const locked = await loadOrder(tx, scope, orderId, true);
    const at = orderNow(deps, locked);
    if (isExpired(locked, at)) {
      await cancelOrder(tx, locked, 'expired', at);
      return loadOrder(tx, scope, orderId);
    }
    return locked;
  });
}

/**
 * The payments of the order as one JSON array column: the fields order.payments[] shows (same order as
 * {@link orderPayments}). Timestamps travel as text inside the JSON and go through the adapters' own parser, so values
 * are identical to a column's.
 */
const ORDER_PAYMENTS_JSON = `(SELECT coalesce(json_agg(json_build_object(
    'id', p.id, 'mop_type', p.mop_type, 'status', p.status, 'status_message', p.status_message,
    'settlement_status', p.settlement_status, 'settlement_id', p.settlement_id, 'created_at', p.created_at::text,
    'utr_number', s.utr_number, 'settlement_completed_at', s.completed_at::text) ORDER BY p.created_at, p.id), '[]'::json)
  FROM payments p LEFT JOIN settlements s ON s.id = p.settlement_id AND s.status = 'completed' WHERE p.order_id = o.id)`;

/**
 * Only what the Order read shows and its expiry check needs (D147 order read selects only what it shows): each column selected is one more value to send,
 * parse and describe (pg builds a parser per column of every result) on the busiest read of the API.
 */
const ORDER_VIEW_COLUMNS = `o.id, o.reference_id, o.amount_minor, o.currency, o.mop_type, o.buyer, o.product, o.status, o.status_message,
  o.created_at, o.invoice, o.air_waybills, o.is_testing, o.expires_at, ${merchantOffsetSql('o.merchant_id')} AS clock_offset_seconds`;

type JsonPayment = OrderPaymentViewRow;

const ts = (v: string | null): string | null => (v === null ? null : parseTimestamptz(v));

/**
 * The read's statement per kind of scope, built once: the text is the prepared statement's key (D86 named prepared statements on PostgreSQL), so a constant
 * is looked up without being rebuilt and re-hashed on every request. The scope is a condition on the order's
 * merchant: the merchant itself, or its partner through the merchants row joined for it (rather than a sub-select of
 * the partner's merchants). Each is written over its parameters' expressions, so that on PostgreSQL the reads of
 * requests arriving together are sent as one statement (D178 PostgreSQL read batching).
 */
const ORDER_READ = (join: string, where: string) =>
  `SELECT ${ORDER_VIEW_COLUMNS}, ${ORDER_PAYMENTS_JSON} AS payments_json FROM orders o${join} WHERE ${where}`;
export const ORDER_READ_SQL = {
  // D167: a function of the rows alone (the expiry is decided by the caller, at the time of each request), so the
  // embedded database may answer it from memory until anything else runs on it; for the same reason PostgreSQL may
  // answer several requests' reads in one statement (D178 PostgreSQL read batching)
  any: cacheableRead(batchableRead(1, ([id]) => ORDER_READ('', `o.id = ${id}`))),
  merchant: cacheableRead(batchableRead(2, ([id, merchant]) => ORDER_READ('', `o.id = ${id} AND o.merchant_id = ${merchant}`))),
  partner: cacheableRead(
    batchableRead(2, ([id, partner]) =>
      ORDER_READ(' JOIN merchants m ON m.id = o.merchant_id', `o.id = ${id} AND m.partner_id = ${partner}`),
    ),
  ),
};

/** The order (in scope, else 404 ERR_ORDER_404) and its payments in ONE round trip, as the Order read shows them. */
export async function loadOrderWithPayments(
  db: Db,
  scope: Scope | null,
  orderId: string,
): Promise<{ order: OrderViewRow; payments: OrderPaymentViewRow[] }> {
  type Row = OrderViewRow & { payments_json: JsonPayment[] | null };
  const { rows } =
    scope === null
      ? await db.query<Row>(ORDER_READ_SQL.any, [orderId])
      : scope.merchantId !== undefined
        ? await db.query<Row>(ORDER_READ_SQL.merchant, [orderId, scope.merchantId])
        : await db.query<Row>(ORDER_READ_SQL.partner, [orderId, scope.partnerId]);
  const row = rows[0];
  if (!row) throw new DomainError('ERR_ORDER_404', 'Order not found', { order_id: `no order ${orderId}` });
  const json = row.payments_json;
  const payments =
    json === null || json.length === 0
      ? []
      : json.map((x) => ({ ...x, created_at: parseTimestamptz(x.created_at), settlement_completed_at: ts(x.settlement_completed_at) }));
  return { order: row, payments };
}

/**
 * GET /pg/orders/{order_id}: the Order (seed shape) after applying expiry. Other tenants => 404 ERR_ORDER_404.
 * One query (order + payments); only an order whose 15 minutes just ran out takes the locking expiry path.
 */
export async function getOrder(deps: ServiceDeps, scope: Scope, orderId: string): Promise<ReturnType<typeof orderView>> {
  const { order, payments } = await loadOrderWithPayments(deps.db, scope, orderId);
  if (!isExpired(order, orderNow(deps, order))) return orderView(order, payments);
  const touched = await touchOrder(deps, scope, orderId);
  return orderView(touched, await orderPayments(deps.db, touched.id));
}

/** The PATCH body as request validation lets it through: only buyer.pan_number, buyer.dob, invoice.number, invoice.date. */
export type PatchOrderInput = Schemas['UpdateOrderRequest'];

/** Correct buyer.pan_number, buyer.dob, invoice.number, invoice.date (any order status). */
export async function patchOrder(
  deps: ServiceDeps,
  scope: Scope,
  orderId: string,
  patch: PatchOrderInput,
): Promise<Schemas['OrderUpdateResult']> {
  return deps.db.transaction(async (tx) => {
    const order = await loadOrder(tx, scope, orderId, true);
    const buyer = { ...order.buyer, ...(patch.buyer ?? {}) };
    const invoice = patch.invoice || order.invoice ? { ...(order.invoice ?? {}), ...(patch.invoice ?? {}) } : null;
    await tx.query('UPDATE orders SET buyer = $2, invoice = $3, updated_at = $4 WHERE id = $1', [
      orderId,
      JSON.stringify(buyer),
      invoice ? JSON.stringify(invoice) : null,
      formatIso(orderNow(deps, order)),
    ]);
    return {
      order_id: orderId,
      buyer: { pan_number: (buyer.pan_number as string | undefined) ?? null, dob: (buyer.dob as string | undefined) ?? null },
      invoice: { number: invoice?.number ?? null, date: invoice?.date ?? null },
    };
  });
}

export const ORDER_DOCUMENT_TYPES = OrderDocumentUploadDocumentType;

/** Attach an invoice (sets invoice.number/file) or an air waybill (appended) to an order; returns the Order. */
export async function attachOrderDocument(
  deps: ServiceDeps,
  store: DocumentStore,
  scope: Scope,
  orderId: string,
  input: { identifier: string; documentType: string; file: UploadedFile },
): Promise<ReturnType<typeof orderView>> {
  if (!(ORDER_DOCUMENT_TYPES as readonly string[]).includes(input.documentType)) {
    throw validationError('document_type', `must be one of ${ORDER_DOCUMENT_TYPES.join(', ')}`);
  }
  if (typeof input.identifier !== 'string' || input.identifier.length === 0 || input.identifier.length > 255) {
    throw validationError('identifier', 'must be a non-empty string of at most 255 characters');
  }
  await deps.db.transaction(async (tx) => {
    const order = await loadOrder(tx, scope, orderId, true);
    const at = orderNow(deps, order);
    const doc = await storeDocument(
      tx,
      store,
      at,
      { merchantId: order.merchant_id, orderId, documentType: input.documentType, identifier: input.identifier },
      input.file,
    );
    if (input.documentType === 'invoice') {
      const invoice = { ...(order.invoice ?? {}), number: input.identifier, file: doc.url };
      await tx.query('UPDATE orders SET invoice = $2, updated_at = $3 WHERE id = $1', [orderId, JSON.stringify(invoice), formatIso(at)]);
    } else {
      const waybills = [...order.air_waybills, { number: input.identifier, file: doc.url }];
      await tx.query('UPDATE orders SET air_waybills = $2, updated_at = $3 WHERE id = $1', [
        orderId,
        JSON.stringify(waybills),
        formatIso(at),
      ]);
    }
  });
  return getOrder(deps, scope, orderId);
}

/**
 * Worker: cancel pending orders whose 15 minutes are over on their merchant's clock (SKIP LOCKED, so processes share
 * the work).
 */
export async function expireDueOrders(deps: ServiceDeps, limit = 100): Promise<number> {
  return deps.db.transaction(async (tx) => {
    const base = formatIso(deps.clock.now());
    const { rows } = await tx.query<{ id: string }>(
      `SELECT o.id FROM orders o
       WHERE o.status = 'payment_pending' AND o.expires_at <= ${latestNowSql('$1')} AND o.expires_at <= ${merchantNowSql('$1', 'o.merchant_id')}
       ORDER BY o.expires_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
      [base, limit],
    );
    for (const { id } of rows) {
      const order = await loadOrder(tx, null, id);
      if (orderMachine.canTransition(order.status, 'payment_cancelled')) await cancelOrder(tx, order, 'expired', orderNow(deps, order));
    }
    return rows.length;
  });
}
