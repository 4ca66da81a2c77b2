import { MopType as MopTypes } from '@paygate/contract';
import type { Schemas } from '../core/contract.js';
import { isSupportedCurrency } from '../core/currency.js';
import { DomainError, type ErrorDetails, VALIDATION_MESSAGE } from '../core/errors.js';
import { parseAmount } from '../core/money.js';
import type { UpiAppName } from './upi.js';

/** Order amount bounds (brief): 1.00 .. 10000000.00. */
export const MIN_ORDER_MINOR = 100;
export const MAX_ORDER_MINOR = 1_000_000_000;

export type MopType = Schemas['MopType'];

/** Canonical mop_type; `NETBANKING` is accepted as an alias of `NET_BANKING`. */
export function normalizeMopType(value: string): MopType | undefined {
  const v = value === 'NETBANKING' ? 'NET_BANKING' : value;
  return MopTypes.find((m) => m === v);
}

/** The order creation request body (seed endpoint 6), as request validation lets it through. */
export type CreateOrderInput = Schemas['CreateOrderRequest'];

export interface NormalizedOrder {
  amountMinor: number;
  currency: string;
  referenceId: string;
  buyer: Schemas['OrderBuyer'];
  product: Schemas['Product'];
  invoice: { number?: string; date?: string } | null;
  returnUrl: string | null;
  collectionMode: NonNullable<CreateOrderInput['collection_mode']>;
  mopType: MopType | null;
  upiFlowType: NonNullable<CreateOrderInput['upi_flow_type']> | null;
  vpa: string | null;
  upiAppName: UpiAppName;
}

/**
 * The business rules of an order request that its schema cannot say (the generated request validator has already
 * enforced every field's type, format, pattern, enum and the s2s / collection conditionals): the amount range, the
 * currencies the sandbox settles, UPI being INR only. Every problem is reported in one 400 ERR_VALIDATION_400.
 */
export function normalizeOrderInput(input: CreateOrderInput): NormalizedOrder {
  const d: ErrorDetails = {};
  const amountMinor = parseAmount(input.amount);
  if (amountMinor < MIN_ORDER_MINOR || amountMinor > MAX_ORDER_MINOR) d['amount'] = 'must be between 1.00 and 10000000.00';
  if (!isSupportedCurrency(input.currency)) d['currency'] = `${input.currency} is not supported`;
  const collectionMode = input.collection_mode ?? 'hosted_payment';
  const mopType = input.mop_type === undefined ? null : (normalizeMopType(input.mop_type) ?? null);
  let upiFlowType: NormalizedOrder['upiFlowType'] = null;
  if (collectionMode === 's2s') {
    if (input.currency !== 'INR' && d['currency'] === undefined) d['currency'] = 'UPI payments are INR only';
    // required by the schema's s2s conditional; checked again here because the type cannot say so
    if (input.upi_flow_type === undefined) d['upi_flow_type'] = 'is required when collection_mode is s2s and mop_type is UPI';
    else upiFlowType = input.upi_flow_type;
  }
  if (Object.keys(d).length > 0) throw new DomainError('ERR_VALIDATION_400', VALIDATION_MESSAGE, d);
  return {
    amountMinor,
    currency: input.currency,
    referenceId: input.reference_id,
    buyer: input.buyer,
    product: input.product,
    invoice: input.invoice ? { ...input.invoice } : null,
    returnUrl: input.return_url ?? null,
    collectionMode,
    mopType: collectionMode === 's2s' ? 'UPI' : mopType,
    upiFlowType,
    vpa: upiFlowType === 'collection' ? (input.vpa ?? null) : null,
    upiAppName: input.upi_app_name ?? 'others',
  };
}
