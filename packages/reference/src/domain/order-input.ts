import { isSupportedCurrency } from './currency.js';
import { DomainError, type ErrorDetails } from './errors.js';
import { parseAmount } from './money.js';
import { isUpiAppName, isValidVpa, type UpiAppName } from './upi.js';

/** Order amount bounds (brief): 1.00 .. 10000000.00. */
export const MIN_ORDER_MINOR = 100;
export const MAX_ORDER_MINOR = 1_000_000_000;

export const MOP_TYPES = ['UPI', 'CREDIT_CARD', 'DEBIT_CARD', 'NET_BANKING', 'QR'] as const;
export type MopType = (typeof MOP_TYPES)[number];

/** Canonical mop_type; `NETBANKING` is accepted as an alias of `NET_BANKING`. */
export function normalizeMopType(value: string): MopType | undefined {
  const v = value === 'NETBANKING' ? 'NET_BANKING' : value;
  return (MOP_TYPES as readonly string[]).includes(v) ? (v as MopType) : undefined;
}

/** The order creation request body (seed endpoint 6). */
export interface CreateOrderInput {
  amount: string;
  currency: string;
  reference_id: string;
  buyer: Record<string, unknown>;
  product: Record<string, unknown>;
  invoice?: { number?: string; date?: string } | undefined;
  return_url?: string | undefined;
  collection_mode?: string | undefined;
  mop_type?: string | undefined;
  upi_flow_type?: string | undefined;
  vpa?: string | undefined;
  upi_app_name?: string | undefined;
}

export interface NormalizedOrder {
  amountMinor: number;
  currency: string;
  referenceId: string;
  buyer: Record<string, unknown>;
  product: Record<string, unknown>;
  invoice: { number?: string; date?: string } | null;
  returnUrl: string | null;
  collectionMode: 'hosted_payment' | 's2s';
  mopType: MopType | null;
  upiFlowType: 'intent' | 'collection' | null;
  vpa: string | null;
  upiAppName: UpiAppName;
}

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

export function isCalendarDate(s: unknown): s is string {
  return typeof s === 'string' && DATE_RE.test(s) && new Date(`${s}T00:00:00Z`).toISOString().slice(0, 10) === s;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Check and normalise an order creation request; every problem is reported in one 400 ERR_VALIDATION_400. */
export function normalizeOrderInput(input: CreateOrderInput): NormalizedOrder {
  const d: ErrorDetails = {};
  let amountMinor = 0;
  try {
    amountMinor = parseAmount(input.amount);
    if (amountMinor < MIN_ORDER_MINOR || amountMinor > MAX_ORDER_MINOR) d['amount'] = 'must be between 1.00 and 10000000.00';
  } catch {
    d['amount'] = 'must be a decimal string with exactly two decimals, e.g. "1500.00"';
  }
  if (typeof input.currency !== 'string' || !/^[A-Z]{3}$/.test(input.currency)) d['currency'] = 'must be three upper-case letters';
  else if (!isSupportedCurrency(input.currency)) d['currency'] = `${input.currency} is not supported`;
  if (typeof input.reference_id !== 'string' || input.reference_id.length === 0 || input.reference_id.length > 255) {
    d['reference_id'] = 'must be a non-empty string of at most 255 characters';
  }
  if (!isObject(input.buyer)) d['buyer'] = 'is required';
  else if (input.buyer['dob'] !== undefined && !isCalendarDate(input.buyer['dob'])) d['buyer.dob'] = 'must be a date YYYY-MM-DD';
  if (!isObject(input.product)) d['product'] = 'is required';
  if (input.invoice !== undefined && input.invoice !== null) {
    if (!isObject(input.invoice)) d['invoice'] = 'must be an object';
    else if (input.invoice.date !== undefined && !isCalendarDate(input.invoice.date)) d['invoice.date'] = 'must be a date YYYY-MM-DD';
  }
  let returnUrl: string | null = null;
  if (input.return_url !== undefined && input.return_url !== null) {
    try {
      const u = new URL(input.return_url);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
      returnUrl = input.return_url;
    } catch {
      d['return_url'] = 'must be an absolute http(s) URL';
    }
  }
  const collectionMode = input.collection_mode ?? 'hosted_payment';
  if (collectionMode !== 'hosted_payment' && collectionMode !== 's2s') d['collection_mode'] = 'must be hosted_payment or s2s';

  let mopType: MopType | null = null;
  if (input.mop_type !== undefined && input.mop_type !== null) {
    mopType = normalizeMopType(input.mop_type) ?? null;
    if (!mopType) d['mop_type'] = `must be one of ${MOP_TYPES.join(', ')} (NETBANKING is accepted)`;
  }
  const upiAppName = input.upi_app_name ?? 'others';
  if (!isUpiAppName(upiAppName)) d['upi_app_name'] = 'must be one of bhim, paytm, google_pay, phonepe, cred, amazon_pay, whatsapp, others';

  let upiFlowType: 'intent' | 'collection' | null = null;
  let vpa: string | null = null;
  if (collectionMode === 's2s') {
    mopType ??= 'UPI';
    if (mopType !== 'UPI') d['mop_type'] = 'collection_mode s2s supports only UPI';
    if (input.upi_flow_type === 'intent' || input.upi_flow_type === 'collection') upiFlowType = input.upi_flow_type;
    else d['upi_flow_type'] = input.upi_flow_type === undefined ? 'is required when collection_mode is s2s and mop_type is UPI' : 'must be intent or collection';
    if (upiFlowType === 'collection') {
      if (input.vpa === undefined || input.vpa === null) d['vpa'] = 'is required when upi_flow_type is collection';
      else if (!isValidVpa(input.vpa)) d['vpa'] = 'must look like name@bank (^[a-zA-Z0-9._-]+@[a-zA-Z0-9.-]+$)';
      else vpa = input.vpa;
    }
    if (input.currency !== 'INR' && d['currency'] === undefined) d['currency'] = 'UPI payments are INR only';
  } else if (input.vpa !== undefined && input.vpa !== null && !isValidVpa(input.vpa)) {
    d['vpa'] = 'must look like name@bank (^[a-zA-Z0-9._-]+@[a-zA-Z0-9.-]+$)';
  }

  if (Object.keys(d).length > 0) throw new DomainError('ERR_VALIDATION_400', 'Request validation failed', d);
  return {
    amountMinor,
    currency: input.currency,
    referenceId: input.reference_id,
    buyer: input.buyer,
    product: input.product,
    invoice: isObject(input.invoice) ? { ...input.invoice } : null,
    returnUrl,
    collectionMode: collectionMode as 'hosted_payment' | 's2s',
    mopType,
    upiFlowType,
    vpa,
    upiAppName: upiAppName as UpiAppName,
  };
}
