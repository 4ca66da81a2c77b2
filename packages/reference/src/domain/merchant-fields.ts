import { DomainError, type ErrorDetails } from './errors.js';

/** Merchant field groups (seed "SettlementDetails", "CompanyDetails") and their checks. */

export const SETTLEMENT_DETAIL_FIELDS = [
  'bank_account_number', 'bank_account_name', 'bank_swift_code', 'bank_name', 'bank_branch_name', 'bank_address',
  'bank_city', 'bank_state', 'bank_country', 'bank_pincode', 'routing_number',
] as const;

export type SettlementDetails = Record<(typeof SETTLEMENT_DETAIL_FIELDS)[number], string>;

export const INTERNATIONAL_ORG_TYPES = ['PRIVATE_LIMITED', 'PUBLIC_LIMITED', 'PARTNERSHIP', 'SOLE_PROPRIETORSHIP', 'LLC', 'CORPORATION'] as const;
export const BUSINESS_CATEGORIES = ['TECHNOLOGY', 'HEALTHCARE', 'FINANCE', 'RETAIL', 'MANUFACTURING', 'EDUCATION', 'ENTERTAINMENT', 'OTHER'] as const;
export const BUSINESS_MODES = ['B2B', 'B2C', 'B2B2C'] as const;
export const PAYMENT_TERMS = ['NET_30', 'NET_60', 'NET_90', 'IMMEDIATE'] as const;

const COMPANY_STRING_FIELDS = [
  'legal_name', 'brand_name', 'registration_number', 'tax_id', 'website', 'monthly_avg_transaction_value',
  'monthly_avg_transaction_volume', 'communication_address', 'communication_city', 'communication_state',
  'communication_country', 'communication_pincode', 'registered_address', 'registered_city', 'registered_state',
  'registered_country', 'registered_pincode', 'commodity', 'category', 'description_of_products_and_services',
  'agreement_details', 'purpose_code',
] as const;

export interface CompanyDetails extends Record<(typeof COMPANY_STRING_FIELDS)[number], string> {
  international_org_type: (typeof INTERNATIONAL_ORG_TYPES)[number];
  business_category: (typeof BUSINESS_CATEGORIES)[number];
  business_mode: (typeof BUSINESS_MODES)[number];
  payment_terms: (typeof PAYMENT_TERMS)[number];
  same_as_registered_address: boolean;
  hs_codes: string[];
}

export const COMPANY_DETAIL_FIELDS = [
  ...COMPANY_STRING_FIELDS, 'international_org_type', 'business_category', 'business_mode', 'payment_terms',
  'same_as_registered_address', 'hs_codes',
] as const;

const ENUMS: Record<string, readonly string[]> = {
  international_org_type: INTERNATIONAL_ORG_TYPES,
  business_category: BUSINESS_CATEGORIES,
  business_mode: BUSINESS_MODES,
  payment_terms: PAYMENT_TERMS,
};

function checkCompanyField(key: string, value: unknown): string | undefined {
  if (key === 'same_as_registered_address') return typeof value === 'boolean' ? undefined : 'must be a boolean';
  if (key === 'hs_codes') return Array.isArray(value) && value.every((v) => typeof v === 'string') ? undefined : 'must be an array of strings';
  if (typeof value !== 'string' || value.length === 0) return 'must be a non-empty string';
  const allowed = ENUMS[key];
  if (allowed && !allowed.includes(value)) return `must be one of ${allowed.join(', ')}`;
  if (key === 'monthly_avg_transaction_value' && !/^\d+\.\d{2}$/.test(value)) return 'must be a decimal string with two decimals';
  if (key === 'monthly_avg_transaction_volume' && !/^\d+$/.test(value)) return 'must be an integer string';
  if (key === 'website') {
    try {
      const u = new URL(value);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must be an http(s) URL';
    } catch {
      return 'must be a URL';
    }
  }
  return undefined;
}

/**
 * Check a settlement_details / company_details group. `partial` (PATCH) allows any subset; create needs every field.
 * Unknown fields are rejected. Throws 400 ERR_VALIDATION_400 with `group.field` details.
 */
export function checkMerchantGroups(
  input: { settlement_details?: unknown; company_details?: unknown },
  partial: boolean,
): void {
  const details: ErrorDetails = {};
  const groups = [
    ['settlement_details', SETTLEMENT_DETAIL_FIELDS as readonly string[], (_k: string, v: unknown) => (typeof v === 'string' && v.length > 0 ? undefined : 'must be a non-empty string')],
    ['company_details', COMPANY_DETAIL_FIELDS as readonly string[], checkCompanyField],
  ] as const;
  for (const [group, fields, check] of groups) {
    const value = input[group];
    if (value === undefined) {
      if (!partial) details[group] = 'is required';
      continue;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      details[group] = 'must be an object';
      continue;
    }
    const obj = value as Record<string, unknown>;
    for (const key of Object.keys(obj)) {
      if (!fields.includes(key)) details[`${group}.${key}`] = 'is not a known field';
    }
    for (const key of fields) {
      if (!(key in obj)) {
        if (!partial) details[`${group}.${key}`] = 'is required';
        continue;
      }
      const problem = check(key, obj[key]);
      if (problem) details[`${group}.${key}`] = problem;
    }
  }
  if (partial && input.settlement_details === undefined && input.company_details === undefined) {
    details['body'] = 'must contain settlement_details and/or company_details';
  }
  if (Object.keys(details).length > 0) throw new DomainError('ERR_VALIDATION_400', 'Request validation failed', details);
}
