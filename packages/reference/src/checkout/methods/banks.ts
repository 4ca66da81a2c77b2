/**
 * The sandbox net banking banks (D72). Codes are the banks' IFSC prefixes, as Razorpay and Cashfree use them; the
 * sandbox-only `PGFL` bank always fails, so a merchant can test the failure path by choosing it.
 */
export interface SandboxBank {
  code: string;
  name: string;
  /** Whether paying through this bank succeeds in the sandbox. */
  succeeds: boolean;
}

export const NETBANKING_FAILED_MESSAGE = 'Payment failed at the bank';

export const SANDBOX_BANKS: readonly SandboxBank[] = [
  { code: 'HDFC', name: 'HDFC Bank', succeeds: true },
  { code: 'ICIC', name: 'ICICI Bank', succeeds: true },
  { code: 'SBIN', name: 'State Bank of India', succeeds: true },
  { code: 'UTIB', name: 'Axis Bank', succeeds: true },
  { code: 'KKBK', name: 'Kotak Mahindra Bank', succeeds: true },
  { code: 'PGFL', name: 'Paygate Test Bank (always fails)', succeeds: false },
];

export function bankFor(code: string): SandboxBank | undefined {
  return SANDBOX_BANKS.find((bank) => bank.code === code);
}
