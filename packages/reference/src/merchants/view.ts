import type { Schemas } from '../core/contract.js';
import type { MerchantRecord } from './service.js';

/** Seed MerchantDetails: settlement_details carries settlement_currency in responses; kyc_status as the spec requires. */
export function merchantDetailsView(m: MerchantRecord): Schemas['MerchantDetails'] {
  return {
    id: m.id,
    settlement_details: { ...m.settlement_details, settlement_currency: m.settlement_currency },
    created_at: m.created_at,
    updated_at: m.updated_at,
    invoice_file: m.invoice_file,
    company_details: m.company_details,
    kyc_status: m.kyc_status,
  };
}
