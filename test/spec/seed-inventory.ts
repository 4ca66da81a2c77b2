/**
 * The seed's inventory: every operation and every field of every table in
 * shared/seed/payment-gateway-spec.md, written down once so that nobody can drop one from openapi/ silently.
 *
 * A field row is `[location, fieldPath, type, required, constraint?]`:
 * - location: where the schema lives in the bundled document (see `locateSchema` in seed-inventory.test.ts);
 * - fieldPath: dot path, `[]` steps into array items;
 * - type: the JSON type(s) the seed gives (`string|null` for nullable);
 * - required: whether the seed makes it required there (`undefined`: the seed does not say, not checked);
 * - constraint: the seed's enum values, pattern or format.
 */
export type Constraint = { enum?: readonly string[]; pattern?: string; format?: string };
export type FieldRow = readonly [location: string, field: string, type: string, required: boolean | undefined, constraint?: Constraint];

export const seedOperations = [
  ['POST', '/partners/merchants/'],
  ['GET', '/partners/merchants/'],
  ['GET', '/partners/merchants/{merchant_id}/'],
  ['PATCH', '/partners/merchants/{merchant_id}/'],
  ['PATCH', '/partners/merchants/{merchant_id}/documents/'],
  ['POST', '/pg/orders/'],
  ['GET', '/pg/orders/{order_id}'],
  ['PATCH', '/pg/orders/{order_id}'],
  ['POST', '/pg/orders/{order_id}/documents/'],
  ['GET', '/pg/payments/{payment_id}/'],
  ['GET', '/pg/payments/'],
  ['POST', '/pg/refunds'],
  ['GET', '/pg/refunds'],
  ['GET', '/pg/refunds/{refund_id}'],
  ['GET', '/pg/settlements'],
  ['GET', '/pg/settlements/{settlement_id}'],
] as const;

const settlementDetailsFields = [
  'bank_account_number',
  'bank_account_name',
  'bank_swift_code',
  'bank_name',
  'bank_branch_name',
  'bank_address',
  'bank_city',
  'bank_state',
  'bank_country',
  'bank_pincode',
  'routing_number',
] as const;

const companyDetails: ReadonlyArray<readonly [string, string, Constraint?]> = [
  ['legal_name', 'string'],
  ['brand_name', 'string'],
  ['registration_number', 'string'],
  [
    'international_org_type',
    'string',
    { enum: ['PRIVATE_LIMITED', 'PUBLIC_LIMITED', 'PARTNERSHIP', 'SOLE_PROPRIETORSHIP', 'LLC', 'CORPORATION'] },
  ],
  ['tax_id', 'string'],
  ['website', 'string', { format: 'uri' }],
  ['monthly_avg_transaction_value', 'string'],
  ['monthly_avg_transaction_volume', 'string'],
  ['communication_address', 'string'],
  ['communication_city', 'string'],
  ['communication_state', 'string'],
  ['communication_country', 'string'],
  ['communication_pincode', 'string'],
  ['same_as_registered_address', 'boolean'],
  ['registered_address', 'string'],
  ['registered_city', 'string'],
  ['registered_state', 'string'],
  ['registered_country', 'string'],
  ['registered_pincode', 'string'],
  [
    'business_category',
    'string',
    { enum: ['TECHNOLOGY', 'HEALTHCARE', 'FINANCE', 'RETAIL', 'MANUFACTURING', 'EDUCATION', 'ENTERTAINMENT', 'OTHER'] },
  ],
  ['business_mode', 'string', { enum: ['B2B', 'B2C', 'B2B2C'] }],
  ['commodity', 'string'],
  ['payment_terms', 'string', { enum: ['NET_30', 'NET_60', 'NET_90', 'IMMEDIATE'] }],
  ['hs_codes', 'array'],
  ['hs_codes[]', 'string'],
  ['category', 'string'],
  ['description_of_products_and_services', 'string'],
  ['agreement_details', 'string'],
  ['purpose_code', 'string'],
];

const CREATE_MERCHANT = 'POST /partners/merchants/ request';
const MERCHANT = 'GET /partners/merchants/{merchant_id}/ 200 data';
const ORDER_REQ = 'POST /pg/orders/ request';
const ORDER = 'GET /pg/orders/{order_id} 200 data';
const PAYMENT = 'GET /pg/payments/{payment_id}/ 200 data';
const PAYMENT_ITEM = 'GET /pg/payments/ 200 data.results[]';
const REFUND = 'GET /pg/refunds/{refund_id} 200 data';
const REFUND_CREATED = 'POST /pg/refunds 200 data';
const SETTLEMENT = 'GET /pg/settlements/{settlement_id} 200 data';
const MOP_REQUEST = ['UPI', 'CREDIT_CARD', 'NETBANKING', 'DEBIT_CARD', 'QR'];
const MOP_FILTER = ['UPI', 'CREDIT_CARD', 'DEBIT_CARD', 'NET_BANKING', 'QR'];
const AMOUNT_PATTERN = '^\\d+\\.\\d{2}$';

export const seedFields: readonly FieldRow[] = [
  // Merchant (MerchantDetails)
  ...(['id', 'settlement_details', 'created_at', 'updated_at', 'invoice_file', 'company_details'] as const).map(
    (f): FieldRow => [
      MERCHANT,
      f,
      {
        id: 'string',
        settlement_details: 'object',
        created_at: 'string',
        updated_at: 'string',
        invoice_file: 'string|null',
        company_details: 'object',
      }[f],
      undefined,
      f.endsWith('_at') ? { format: 'date-time' } : undefined,
    ],
  ),
  [MERCHANT, 'settlement_details.settlement_currency', 'string', undefined],
  // Merchant list item
  ['GET /partners/merchants/ 200 data.results[]', 'id', 'string', undefined],
  ['GET /partners/merchants/ 200 data.results[]', 'brand_name', 'string', undefined],
  ['GET /partners/merchants/ 200 data.results[]', 'kyc_status', 'string', undefined],
  ['GET /partners/merchants/ 200 data.results[]', 'created_date', 'string', undefined, { format: 'date-time' }],
  // SettlementDetails and CompanyDetails: all required on creation
  [CREATE_MERCHANT, 'settlement_details', 'object', true],
  [CREATE_MERCHANT, 'company_details', 'object', true],
  ...settlementDetailsFields.map((f): FieldRow => [CREATE_MERCHANT, `settlement_details.${f}`, 'string', true]),
  ...companyDetails.map(([f, t, c]): FieldRow => [CREATE_MERCHANT, `company_details.${f}`, t, f.endsWith('[]') ? undefined : true, c]),
  ...settlementDetailsFields.map((f): FieldRow => [MERCHANT, `settlement_details.${f}`, 'string', undefined]),
  ...companyDetails.map(([f, t, c]): FieldRow => [MERCHANT, `company_details.${f}`, t, undefined, c]),
  // PATCH merchant: optional groups; 200 data
  ['PATCH /partners/merchants/{merchant_id}/ request', 'company_details', 'object', false],
  ['PATCH /partners/merchants/{merchant_id}/ request', 'settlement_details', 'object', false],
  ['PATCH /partners/merchants/{merchant_id}/ 200 data', 'merchant_id', 'string', undefined],
  ['PATCH /partners/merchants/{merchant_id}/ 200 data', 'updated_fields', 'array', undefined],
  ['PATCH /partners/merchants/{merchant_id}/ 200 data', 'updated_fields[]', 'string', undefined],
  // Merchant document upload (multipart)
  ['PATCH /partners/merchants/{merchant_id}/documents/ request', 'document_type', 'string', undefined],
  ['PATCH /partners/merchants/{merchant_id}/documents/ request', 'file', 'string', undefined, { format: 'binary' }],
  ['PATCH /partners/merchants/{merchant_id}/documents/ 200 data', 'detail', 'string', undefined],
  // Order creation request
  [ORDER_REQ, 'amount', 'string', true, { pattern: AMOUNT_PATTERN }],
  [ORDER_REQ, 'currency', 'string', true, { pattern: '^[A-Z]{3}$' }],
  [ORDER_REQ, 'reference_id', 'string', true],
  [ORDER_REQ, 'buyer', 'object', true],
  ...(['name', 'email', 'phone'] as const).map((f): FieldRow => [ORDER_REQ, `buyer.${f}`, 'string', undefined]),
  [ORDER_REQ, 'buyer.address', 'object', undefined],
  ...(['line_1', 'line_2', 'city', 'state', 'postal_code'] as const).map(
    (f): FieldRow => [ORDER_REQ, `buyer.address.${f}`, 'string', undefined],
  ),
  [ORDER_REQ, 'product', 'object', true],
  ...(['name', 'description', 'hs_code', 'hs_code_description', 'type_of_goods'] as const).map(
    (f): FieldRow => [ORDER_REQ, `product.${f}`, 'string', undefined],
  ),
  [ORDER_REQ, 'invoice', 'object', false],
  [ORDER_REQ, 'invoice.number', 'string', undefined],
  [ORDER_REQ, 'invoice.date', 'string', undefined, { format: 'date' }],
  [ORDER_REQ, 'return_url', 'string', false],
  [ORDER_REQ, 'collection_mode', 'string', false, { enum: ['hosted_payment', 's2s'] }],
  [ORDER_REQ, 'mop_type', 'string', false, { enum: MOP_REQUEST }],
  [ORDER_REQ, 'upi_flow_type', 'string', false, { enum: ['intent', 'collection'] }],
  [ORDER_REQ, 'vpa', 'string', false, { pattern: '^[a-zA-Z0-9._-]+@[a-zA-Z0-9.-]+$' }],
  [
    ORDER_REQ,
    'upi_app_name',
    'string',
    false,
    { enum: ['bhim', 'paytm', 'google_pay', 'phonepe', 'cred', 'amazon_pay', 'whatsapp', 'others'] },
  ],
  // Order creation responses (hosted session, s2s intent, s2s collection)
  ['POST /pg/orders/ 200 data', 'session_id', 'string', true],
  ['POST /pg/orders/ 200 data', 'order_id', 'string', true],
  ['POST /pg/orders/ 200 data', 'intent_uri', 'string', true],
  ['POST /pg/orders/ 200 data', 'message', 'string', true],
  // Order (read)
  [ORDER, 'order_id', 'string', undefined],
  [ORDER, 'reference_id', 'string', undefined],
  [ORDER, 'amount', 'number', undefined],
  [ORDER, 'currency', 'string', undefined],
  [ORDER, 'mop_type', 'string|null', undefined],
  [ORDER, 'buyer', 'object', undefined],
  ...(['name', 'email', 'phone'] as const).map((f): FieldRow => [ORDER, `buyer.${f}`, 'string', undefined]),
  [ORDER, 'buyer.address', 'object', undefined],
  ...(['line_1', 'line_2', 'city', 'state', 'postal_code'] as const).map(
    (f): FieldRow => [ORDER, `buyer.address.${f}`, 'string', undefined],
  ),
  [ORDER, 'buyer.pan_number', 'string|null', undefined],
  [ORDER, 'buyer.dob', 'string|null', undefined, { format: 'date' }],
  [ORDER, 'product', 'object', undefined],
  ...(['name', 'description', 'hs_code', 'hs_code_description', 'type_of_goods'] as const).map(
    (f): FieldRow => [ORDER, `product.${f}`, 'string', undefined],
  ),
  [ORDER, 'invoice', 'object|null', undefined],
  [ORDER, 'invoice.number', 'string|null', undefined],
  [ORDER, 'invoice.date', 'string|null', undefined, { format: 'date' }],
  [ORDER, 'invoice.file', 'string|null', undefined],
  [ORDER, 'air_waybills', 'array', undefined],
  [ORDER, 'air_waybills[].number', 'string', undefined],
  [ORDER, 'air_waybills[].file', 'string', undefined],
  [ORDER, 'payments', 'array', undefined],
  [ORDER, 'payments[].payment_id', 'string', undefined],
  [ORDER, 'payments[].mop_type', 'string', undefined],
  [ORDER, 'payments[].status', 'string', undefined],
  [ORDER, 'payments[].status_message', 'string|null', undefined],
  [ORDER, 'payments[].settlement', 'object', undefined],
  [ORDER, 'payments[].settlement.status', 'string', undefined],
  [ORDER, 'payments[].settlement.message', 'string|null', undefined],
  [ORDER, 'payments[].settlement.settlement_details', 'object|null', undefined],
  [ORDER, 'payments[].created_at', 'string', undefined],
  [ORDER, 'status', 'string', undefined, { enum: ['payment_pending', 'payment_successful', 'payment_failed', 'payment_cancelled'] }],
  [ORDER, 'status_message', 'string', undefined],
  [ORDER, 'created_at', 'string', undefined, { format: 'date-time' }],
  [ORDER, 'is_testing', 'boolean', undefined],
  // PATCH order: the four updatable fields, and the nested envelope in the response
  ['PATCH /pg/orders/{order_id} request', 'buyer.pan_number', 'string', undefined],
  ['PATCH /pg/orders/{order_id} request', 'buyer.dob', 'string', undefined, { format: 'date' }],
  ['PATCH /pg/orders/{order_id} request', 'invoice.number', 'string', undefined],
  ['PATCH /pg/orders/{order_id} request', 'invoice.date', 'string', undefined, { format: 'date' }],
  ['PATCH /pg/orders/{order_id} 200', 'data.success', 'boolean', undefined],
  ['PATCH /pg/orders/{order_id} 200', 'data.message', 'string', undefined],
  ['PATCH /pg/orders/{order_id} 200', 'data.data.order_id', 'string', undefined],
  ['PATCH /pg/orders/{order_id} 200', 'data.data.buyer.pan_number', 'string|null', undefined],
  ['PATCH /pg/orders/{order_id} 200', 'data.data.buyer.dob', 'string|null', undefined],
  ['PATCH /pg/orders/{order_id} 200', 'data.data.invoice.number', 'string|null', undefined],
  ['PATCH /pg/orders/{order_id} 200', 'data.data.invoice.date', 'string|null', undefined],
  // Order documents (multipart) -> full order
  ['POST /pg/orders/{order_id}/documents/ request', 'identifier', 'string', undefined],
  ['POST /pg/orders/{order_id}/documents/ request', 'document_type', 'string', undefined],
  ['POST /pg/orders/{order_id}/documents/ request', 'file', 'string', undefined, { format: 'binary' }],
  ['POST /pg/orders/{order_id}/documents/ 200 data', 'invoice.file', 'string|null', undefined],
  ['POST /pg/orders/{order_id}/documents/ 200 data', 'air_waybills', 'array', undefined],
  // Payment (read by id)
  [PAYMENT, 'payment_id', 'string', undefined],
  [PAYMENT, 'order', 'object', undefined],
  ...(['order_id', 'reference_id', 'currency', 'status', 'status_message', 'created_at'] as const).map(
    (f): FieldRow => [PAYMENT, `order.${f}`, 'string', undefined],
  ),
  [PAYMENT, 'order.amount', 'number', undefined],
  [PAYMENT, 'order.mop_type', 'string|null', undefined],
  [PAYMENT, 'order.buyer', 'object', undefined],
  [PAYMENT, 'order.product', 'object', undefined],
  [PAYMENT, 'settlement', 'object|null', undefined],
  ...(['id', 'settlement_id', 'settlement_completed_date', 'settlement_currency', 'utr_number', 'created_date'] as const).map(
    (f): FieldRow => [PAYMENT, `settlement.${f}`, 'string', undefined],
  ),
  [PAYMENT, 'settlement.settlement_amount', 'number', undefined],
  [PAYMENT, 'settlement.number_of_transactions', 'integer', undefined],
  [PAYMENT, 'refund', 'array', undefined],
  [PAYMENT, 'refund[].refund_id', 'string', undefined],
  [PAYMENT, 'collection_mode', 'string', undefined],
  [PAYMENT, 'mop_type', 'string', undefined],
  [PAYMENT, 'bank_ref_num', 'string|null', undefined],
  [PAYMENT, 'mop_detail', 'object', undefined],
  [PAYMENT, 'mop_detail.upi_id', 'string', undefined],
  [PAYMENT, 'payment_completed_at', 'string|null', undefined, { format: 'date-time' }],
  [PAYMENT, 'status', 'string', undefined, { enum: ['PENDING', 'CAPTURED', 'FAILED'] }],
  [PAYMENT, 'status_message', 'string', undefined],
  [PAYMENT, 'created_date', 'string', undefined, { format: 'date-time' }],
  // Payment list item
  [PAYMENT_ITEM, 'id', 'string', undefined],
  [PAYMENT_ITEM, 'merchant.id', 'string', undefined],
  [PAYMENT_ITEM, 'merchant.name', 'string', undefined],
  [PAYMENT_ITEM, 'reference_id', 'string', undefined],
  [PAYMENT_ITEM, 'buyer.name', 'string', undefined],
  [PAYMENT_ITEM, 'buyer.email', 'string', undefined],
  [PAYMENT_ITEM, 'buyer.phone', 'string', undefined],
  [PAYMENT_ITEM, 'payment_id', 'string', undefined],
  [PAYMENT_ITEM, 'amount.amount', 'string', undefined],
  [PAYMENT_ITEM, 'amount.total_amount', 'string', undefined],
  [PAYMENT_ITEM, 'amount.currency', 'string', undefined],
  [PAYMENT_ITEM, 'created_at', 'string', undefined],
  [PAYMENT_ITEM, 'comment', 'string|null', undefined],
  [PAYMENT_ITEM, 'mop_type', 'string', undefined],
  [PAYMENT_ITEM, 'status', 'string', undefined],
  // Refunds
  ['POST /pg/refunds request', 'payment_id', 'string', true],
  ['POST /pg/refunds request', 'refund_amount', 'string', true],
  ...(['refund_id', 'payment_id', 'refund_status', 'message', 'transaction_id'] as const).map(
    (f): FieldRow => [REFUND_CREATED, f, 'string', undefined],
  ),
  [REFUND_CREATED, 'refund_amount', 'number', undefined],
  [REFUND_CREATED, 'bank_ref_num', 'string|null', undefined],
  [REFUND, 'refund_id', 'string', undefined],
  [REFUND, 'payment_id', 'string', undefined],
  [REFUND, 'refund_amount', 'number', undefined],
  [REFUND, 'refund_status', 'string', undefined],
  [REFUND, 'refunded_at', 'string|null', undefined, { format: 'date-time' }],
  [REFUND, 'message', 'string', undefined],
  ['GET /pg/refunds 200', 'results[].refund_id', 'string', undefined],
  ['GET /pg/refunds 200', 'results[].refunded_at', 'string|null', undefined],
  // Settlement
  [SETTLEMENT, 'settlement_id', 'string', undefined],
  [SETTLEMENT, 'utr_number', 'string', undefined],
  [SETTLEMENT, 'settlement_completed_date', 'string', undefined, { format: 'date-time' }],
  [SETTLEMENT, 'forex_rate_cents', 'integer', undefined],
  [SETTLEMENT, 'settlement_amount_cents', 'integer', undefined],
  [SETTLEMENT, 'settlement_currency', 'string', undefined],
  [SETTLEMENT, 'transactions', 'array', undefined],
  [SETTLEMENT, 'transactions[].settlement_type', 'string', undefined],
  [SETTLEMENT, 'transactions[].transaction_id', 'string', undefined],
  ...(['transaction_amount', 'merchant_service_fee', 'merchant_service_tax', 'merchant_net_amount', 'forex_rate'] as const).map(
    (f): FieldRow => [SETTLEMENT, `transactions[].${f}`, 'number', undefined],
  ),
  [SETTLEMENT, 'transactions[].mop_type', 'string', undefined],
  [SETTLEMENT, 'transactions[].transaction_currency', 'string', undefined],
  // Pagination envelope (merchants and payments under data; refunds unwrapped)
  ...(['GET /partners/merchants/ 200 data', 'GET /pg/payments/ 200 data', 'GET /pg/refunds 200'] as const).flatMap((loc): FieldRow[] => [
    [loc, 'count', 'integer', true],
    [loc, 'page', 'integer', true],
    [loc, 'page_size', 'integer', true],
    [loc, 'next', 'string|null', true],
    [loc, 'previous', 'string|null', true],
    [loc, 'results', 'array', true],
  ]),
  // Standard envelope and error envelope
  ['GET /pg/orders/{order_id} 200', 'success', 'boolean', true],
  ['GET /pg/orders/{order_id} 200', 'message', 'string', true],
  ['GET /pg/orders/{order_id} 200', 'data', 'object', true],
  ['GET /pg/orders/{order_id} 404', 'success', 'boolean', true],
  ['GET /pg/orders/{order_id} 404', 'error', 'object', true],
  ['GET /pg/orders/{order_id} 404', 'error.code', 'string', true],
  ['GET /pg/orders/{order_id} 404', 'error.message', 'string', true],
  ['GET /pg/orders/{order_id} 404', 'error.details', 'object', false],
  ['GET /pg/orders/{order_id} 404', 'message', 'string', false],
  ['POST /partners/merchants/ 400', 'error.details', 'object', false],
  // Return-URL callback (form fields)
  ...(['order_id', 'payment_id', 'status', 'message', 'mop_type', 'bank_ref_num', 'payment_completed_at', 'hash'] as const).map(
    (f): FieldRow => ['callback POST /pg/orders/ returnUrl', f, 'string', undefined],
  ),
  // Webhook envelope and events (all envelope and data fields required)
  ...(['PAYMENT_FAILED', 'PAYMENT_SETTLED', 'MERCHANT_APPROVED'] as const).flatMap((event): FieldRow[] => [
    [`webhook ${event}`, 'event_type', 'string', true],
    [`webhook ${event}`, 'event_time', 'string', true],
    [`webhook ${event}`, 'version', 'string', true],
    [`webhook ${event}`, 'sequence_number', 'string', true],
    [`webhook ${event}`, 'data', 'object', true],
  ]),
  ...(['status', 'message', 'mop_type', 'order_id', 'payment_id', 'bank_ref_num', 'payment_completed_at'] as const).map(
    (f): FieldRow => ['webhook PAYMENT_FAILED', `data.${f}`, 'string', true],
  ),
  ['webhook PAYMENT_SETTLED', 'data.settlements', 'array', true],
  ['webhook PAYMENT_SETTLED', 'data.settlements[].settlement_id', 'string', true],
  ['webhook PAYMENT_SETTLED', 'data.settlements[].settlement_utr', 'string', true],
  ['webhook PAYMENT_SETTLED', 'data.settlements[].settlement_done_at', 'string', true],
  ['webhook PAYMENT_SETTLED', 'data.settlements[].forex_rate', 'number', true],
  ['webhook PAYMENT_SETTLED', 'data.settlements[].settlement_amount', 'number', true],
  ...(['approved_at', 'merchant_id', 'legal_name', 'trade_name'] as const).map(
    (f): FieldRow => ['webhook MERCHANT_APPROVED', `data.${f}`, 'string', true],
  ),
];

/** Query parameters the seed names for the payments list. */
export const seedPaymentFilters: ReadonlyArray<readonly [string, Constraint?]> = [
  ['page'],
  ['page_size'],
  ['currency', { pattern: '^[A-Z]{3}$' }],
  ['merchant_id'],
  ['payment_id'],
  ['reference_id'],
  ['buyer_name'],
  ['mop_type', { enum: MOP_FILTER }],
  ['status', { enum: ['PENDING', 'CAPTURED', 'FAILED'] }],
  ['from_created_date'],
  ['to_created_date'],
];

/** Per-event `event_time` shapes exactly as the seed gives them. */
export const seedEventTimes = {
  PAYMENT_FAILED: ['2026-11-21 10:15:30Z', '2026-11-21 10:15:30'],
  PAYMENT_SETTLED: ['2026-11-21 10:15:30', '2026-11-21 10:15:30Z'],
  MERCHANT_APPROVED: ['2026-11-21 10:15:30', '2026-11-21T10:15:30Z'],
} as const; // [accepted, rejected]
