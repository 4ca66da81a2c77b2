import { describe, expect, it } from 'vitest';
import {
  bankCodeError,
  cardCvcError,
  cardExpiryError,
  cardFieldErrors,
  cardNameError,
  cardNumberError,
  MESSAGES,
  vpaError,
} from './field-checks.js';

const NOW = Date.parse('2026-11-21T10:00:00Z');

describe('field rules shared by the server and the page script (D294)', () => {
  it.each([
    ['vpa', () => vpaError(''), undefined],
    ['vpa', () => vpaError('priya@okhdfcbank'), undefined],
    ['vpa', () => vpaError('  priya@okhdfcbank '), undefined],
    ['vpa', () => vpaError('priya at bank'), MESSAGES.vpa],
    ['vpa', () => vpaError('priya@ok_bank'), MESSAGES.vpa],
    ['card_number', () => cardNumberError(''), MESSAGES.cardNumberMissing],
    ['card_number', () => cardNumberError('4242 4242 4242 4241'), MESSAGES.cardNumberInvalid],
    ['card_number', () => cardNumberError('4242 42'), MESSAGES.cardNumberInvalid],
    ['card_number', () => cardNumberError('4111 1111 1111 1111'), MESSAGES.cardNumberNotTestCard],
    ['card_number', () => cardNumberError('4242-4242-4242-4242'), undefined],
    ['card_expiry', () => cardExpiryError(' ', NOW), MESSAGES.expiryMissing],
    ['card_expiry', () => cardExpiryError('13/30', NOW), MESSAGES.expiryMalformed],
    ['card_expiry', () => cardExpiryError('1230', NOW), MESSAGES.expiryMalformed],
    ['card_expiry', () => cardExpiryError('10/26', NOW), MESSAGES.expired],
    ['card_expiry', () => cardExpiryError('11/26', NOW), undefined],
    ['card_expiry', () => cardExpiryError('12 / 2030', NOW), undefined],
    ['card_cvc', () => cardCvcError('', '4242424242424242'), MESSAGES.cvcMissing],
    ['card_cvc', () => cardCvcError('12', '4242424242424242'), MESSAGES.cvc3],
    ['card_cvc', () => cardCvcError('1234', '4242424242424242'), MESSAGES.cvc3],
    ['card_cvc', () => cardCvcError('123', '378282246310005'), MESSAGES.cvc4],
    ['card_cvc', () => cardCvcError('1234', '3782 822463 10005'), undefined],
    ['card_cvc', () => cardCvcError('1234', ''), undefined],
    ['card_cvc', () => cardCvcError('12a', ''), MESSAGES.cvc3],
    ['card_name', () => cardNameError(' '), MESSAGES.nameMissing],
    ['card_name', () => cardNameError('Priya Sharma'), undefined],
    ['bank_code', () => bankCodeError(''), MESSAGES.bank],
    ['bank_code', () => bankCodeError('HDFC'), undefined],
  ])('%s: %s', (_field, check, expected) => {
    expect(check()).toBe(expected);
  });

  it('cardFieldErrors: every card field at once', () => {
    expect(cardFieldErrors({ card_number: '4242 4242 4242 4241', card_expiry: '01/20', card_cvc: '1', card_name: '' }, NOW)).toEqual({
      card_number: MESSAGES.cardNumberInvalid,
      card_expiry: MESSAGES.expired,
      card_cvc: MESSAGES.cvc3,
      card_name: MESSAGES.nameMissing,
    });
    expect(cardFieldErrors({ card_number: '4242424242424242', card_expiry: '12/30', card_cvc: '123', card_name: 'P' }, NOW)).toEqual({});
  });
});
