/**
 * The VPA (UPI ID) rule, alone in a module with no import, so that the hosted checkout's browser script bundles the
 * very rule the server applies (D294 checkout field rules in one module) without the contract it would otherwise pull in. orders/upi.ts re-exports it.
 */
export const VPA_PATTERN = /^[a-zA-Z0-9._-]+@[a-zA-Z0-9.-]+$/;

export function isValidVpa(vpa: string): boolean {
  return vpa.length <= 255 && VPA_PATTERN.test(vpa);
}
