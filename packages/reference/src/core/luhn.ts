/**
 * The Luhn (mod 10) check digit test of ISO/IEC 7812 card numbers. Shared by the checkout's card validation and the
 * logger, which masks any Luhn-valid digit run so a card number never reaches a log line.
 */
export function passesLuhn(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}
