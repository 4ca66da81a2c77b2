/** Currencies the sandbox accepts and settles in (all have 2 decimals). */
export const SUPPORTED_CURRENCIES = ['INR', 'USD', 'EUR', 'GBP', 'AED', 'SGD', 'AUD', 'CAD', 'CHF', 'HKD'] as const;
export type Currency = (typeof SUPPORTED_CURRENCIES)[number];

export function isSupportedCurrency(code: string): code is Currency {
  return (SUPPORTED_CURRENCIES as readonly string[]).includes(code);
}

/** EU member states (ISO 3166-1 alpha-2); the sandbox settles all of them in EUR (SEPA). */
export const EU_MEMBERS = [
  'AT',
  'BE',
  'BG',
  'HR',
  'CY',
  'CZ',
  'DK',
  'EE',
  'FI',
  'FR',
  'DE',
  'GR',
  'HU',
  'IE',
  'IT',
  'LV',
  'LT',
  'LU',
  'MT',
  'NL',
  'PL',
  'PT',
  'RO',
  'SK',
  'SI',
  'ES',
  'SE',
] as const;

const BY_COUNTRY: Record<string, Currency> = {
  IN: 'INR',
  US: 'USD',
  GB: 'GBP',
  AE: 'AED',
  SG: 'SGD',
  AU: 'AUD',
  CA: 'CAD',
  CH: 'CHF',
  HK: 'HKD',
  ...Object.fromEntries(EU_MEMBERS.map((c) => [c, 'EUR' as const])),
};

/** Settlement currency of a merchant from `settlement_details.bank_country` (alpha-2, any case); others -> USD. */
export function settlementCurrencyFor(bankCountry: string): Currency {
  return BY_COUNTRY[bankCountry.trim().toUpperCase()] ?? 'USD';
}
