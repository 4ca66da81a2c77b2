import { describe, expect, it } from 'vitest';
import { passesLuhn } from '../../core/luhn.js';
import {
  cardDigits,
  cardNetwork,
  cvcLength,
  isExpired,
  isValidCardNumber,
  parseExpiry,
  summarizeCard,
  TEST_CARDS,
  testCardFor,
} from './cards.js';

describe('passesLuhn', () => {
  it.each([
    ['4242424242424242', true],
    ['4242424242424241', false],
    ['378282246310005', true],
    ['6522000000000006', true],
    ['0', true],
    ['79927398713', true],
    ['79927398710', false],
    ['4242 4242', false],
    ['', false],
  ])('%s -> %s', (digits, expected) => {
    expect(passesLuhn(digits)).toBe(expected);
  });
});

describe('card number', () => {
  it.each([
    ['4242 4242 4242 4242', '4242424242424242'],
    ['4242-4242-4242-4242', '4242424242424242'],
    [' 378282246310005 ', '378282246310005'],
    ['4242', null],
    ['4242 4242 4242 424a', null],
    ['12345678901234567890', null],
  ])('cardDigits(%j) -> %j', (input, expected) => {
    expect(cardDigits(input)).toBe(expected);
  });

  it.each([
    ['4242 4242 4242 4242', true],
    ['4242 4242 4242 4241', false],
    ['1234', false],
  ])('isValidCardNumber(%j) -> %s', (input, expected) => {
    expect(isValidCardNumber(input)).toBe(expected);
  });
});

describe('cardNetwork', () => {
  it.each([
    ['4242424242424242', 'visa'],
    ['5555555555554444', 'mastercard'],
    ['2223003122003222', 'mastercard'],
    ['378282246310005', 'amex'],
    ['340000000000009', 'amex'],
    ['6522000000000006', 'rupay'],
    ['6080000000000000', 'rupay'],
    ['5085000000000000', 'rupay'],
    ['8200000000000000', 'rupay'],
    ['36227206271667', 'diners'],
    ['30569309025904', 'diners'],
    ['9999999999999995', 'unknown'],
  ] as const)('%s is %s', (digits, network) => {
    expect(cardNetwork(digits)).toBe(network);
  });

  it('wants a 4-digit CVC for American Express only', () => {
    expect(cvcLength('amex')).toBe(4);
    expect(cvcLength('visa')).toBe(3);
    expect(cvcLength('rupay')).toBe(3);
  });
});

describe('expiry', () => {
  it.each([
    ['12/30', { month: 12, year: 2030 }],
    ['1/30', { month: 1, year: 2030 }],
    ['01 / 2031', { month: 1, year: 2031 }],
    ['13/30', null],
    ['00/30', null],
    ['1230', null],
    ['12/3', null],
    ['', null],
  ])('parseExpiry(%j) -> %j', (input, expected) => {
    expect(parseExpiry(input)).toEqual(expected);
  });

  const at = (iso: string) => Date.parse(iso);
  it.each([
    [{ month: 11, year: 2026 }, '2026-11-30T23:59:59Z', false],
    [{ month: 11, year: 2026 }, '2026-12-01T00:00:00Z', true],
    [{ month: 10, year: 2026 }, '2026-11-21T10:00:00Z', true],
    [{ month: 12, year: 2030 }, '2026-11-21T10:00:00Z', false],
  ])('%j at %s: expired %s (valid through the end of the month)', (expiry, now, expected) => {
    expect(isExpired(expiry, at(now))).toBe(expected);
  });
});

describe('sandbox test cards', () => {
  it.each(TEST_CARDS.map((card) => [card.number, card] as const))(
    '%s is Luhn-valid and its network is detected from its BIN',
    (number, card) => {
      expect(passesLuhn(number)).toBe(true);
      expect(cardNetwork(number)).toBe(card.network);
      expect(testCardFor(number)).toBe(card);
    },
  );

  it.each([
    ['4242424242424242', 'success'],
    ['4000000000000002', 'decline'],
    ['4000000000009995', 'decline'],
    ['4000000000003220', 'three_ds'],
  ])('%s: %s', (number, kind) => {
    expect(testCardFor(number)?.behaviour.kind).toBe(kind);
  });

  it('does not know a real card number', () => {
    expect(testCardFor('4111111111111111')).toBeUndefined();
  });

  it('a card summary keeps the last four digits and the network, never the number', () => {
    const summary = summarizeCard('4242424242424242');
    expect(summary).toEqual({ card_last4: '4242', card_network: 'visa' });
    expect(JSON.stringify(summary)).not.toContain('42424242');
  });
});
