import type { Db } from '../db/db.js';
import { createSecretBox, generateMasterKey, parseMasterKey, type SecretBox } from '../core/secret-box.js';
import type { CompanyDetails, SettlementDetails } from '../merchants/service.js';
import type { CreateOrderInput } from '../orders/input.js';
import { ManualClock } from '../core/clock.js';
import { completeCheckoutSession } from '../checkout/service.js';
import { ensurePartnerCredential } from '../credentials/service.js';
import { randomIds, type ServiceDeps } from '../core/deps.js';
import { createMerchant, setKycStatus } from '../merchants/service.js';
import { createOrder } from '../orders/service.js';
import type { Scope } from '../core/scope.js';

/** Test helpers: realistic inputs built per call (no shared canned state). */

export function settlementDetails(country = 'IN'): SettlementDetails {
  return {
    bank_account_number: '001234567890',
    bank_account_name: 'Acme Exports Pvt Ltd',
    bank_swift_code: 'HDFCINBB',
    bank_name: 'HDFC Bank',
    bank_branch_name: 'Fort',
    bank_address: '1 Dr DN Road',
    bank_city: 'Mumbai',
    bank_state: 'MH',
    bank_country: country,
    bank_pincode: '400001',
    routing_number: 'HDFC0000060',
  };
}

export function companyDetails(brand = 'Acme'): CompanyDetails {
  return {
    legal_name: `${brand} Exports Private Limited`,
    brand_name: brand,
    registration_number: 'U12345MH2020PTC123456',
    international_org_type: 'PRIVATE_LIMITED',
    tax_id: '27AAACA1234A1Z5',
    website: 'https://acme.example',
    monthly_avg_transaction_value: '250000.00',
    monthly_avg_transaction_volume: '120',
    communication_address: '1 Main Street',
    communication_city: 'Mumbai',
    communication_state: 'MH',
    communication_country: 'IN',
    communication_pincode: '400001',
    same_as_registered_address: true,
    registered_address: '1 Main Street',
    registered_city: 'Mumbai',
    registered_state: 'MH',
    registered_country: 'IN',
    registered_pincode: '400001',
    business_category: 'RETAIL',
    business_mode: 'B2C',
    commodity: 'Handicrafts',
    payment_terms: 'IMMEDIATE',
    hs_codes: ['4602'],
    category: 'Home decor',
    description_of_products_and_services: 'Handmade baskets',
    agreement_details: 'Standard merchant agreement',
    purpose_code: 'P0103',
  };
}

export function orderInput(overrides: Partial<CreateOrderInput> = {}): CreateOrderInput {
  return {
    amount: '1500.00',
    currency: 'INR',
    reference_id: `ref-${Math.random().toString(36).slice(2)}`,
    buyer: {
      name: 'Asha Rao',
      email: 'asha@example.com',
      phone: '+919800000000',
      address: { line_1: '2 Park St', line_2: 'Flat 4', city: 'Pune', state: 'MH', postal_code: '411001' },
    },
    product: { name: 'Cane basket', description: 'Large', hs_code: '4602', hs_code_description: 'Basketwork', type_of_goods: 'goods' },
    return_url: 'https://shop.example/return',
    ...overrides,
  };
}

/** One random master key per test process: every testDeps shares it, so deps on the same database open each other's values. */
export const testSecrets: SecretBox = createSecretBox(parseMasterKey(generateMasterKey()));

export function testDeps(db: Db, clock = new ManualClock(), secrets: SecretBox = testSecrets): ServiceDeps & { clock: ManualClock } {
  return { db, clock, ids: randomIds(), secrets };
}

/** A partner with an APPROVED merchant; returns scopes for both views. */
export async function approvedMerchant(
  deps: ServiceDeps,
  opts: { partnerId?: string; country?: string; brand?: string } = {},
): Promise<{ partnerId: string; merchantId: string; partnerScope: Scope; merchantScope: Scope }> {
  const partnerId = opts.partnerId ?? 'default';
  await ensurePartnerCredential(deps, { partnerId, clientId: `pk_${partnerId}`, clientSecret: `partner-secret-${partnerId}-0123456789` });
  const merchant = await createMerchant(deps, partnerId, {
    settlement_details: settlementDetails(opts.country),
    company_details: companyDetails(opts.brand),
  });
  await setKycStatus(deps, partnerId, merchant.id, { status: 'APPROVED' });
  return {
    partnerId,
    merchantId: merchant.id,
    partnerScope: { partnerId, merchantId: undefined },
    merchantScope: { partnerId, merchantId: merchant.id },
  };
}

/** Create a hosted order and pay it through the checkout session. */
export async function paidOrder(
  deps: ServiceDeps,
  merchantId: string,
  overrides: Partial<CreateOrderInput> = {},
  outcome: 'success' | 'failure' | 'cancel' = 'success',
) {
  const created = await createOrder(deps, merchantId, orderInput(overrides), { isTesting: true });
  if (created.kind !== 'hosted') throw new Error('expected a hosted order');
  const result = await completeCheckoutSession(deps, created.session_id, { outcome, mopType: 'UPI', mopDetail: { upi_id: 'asha@okbank' } });
  return { ...result, session_id: created.session_id };
}
