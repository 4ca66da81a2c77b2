import { describe, expect, it } from 'vitest';
import { claimScope, type Principal } from './scope.js';

const partner: Principal = { kind: 'partner', clientId: 'pk_1', partnerId: 'p1' };
const merchant: Principal = { kind: 'merchant', clientId: 'mk_1', partnerId: 'p1', merchantId: 'MR1' };

describe('claimScope (X-Merchant-ID before any database read)', () => {
  it.each([
    ['partner, no header', partner, undefined, { scope: { partnerId: 'p1', merchantId: undefined }, ownerUnchecked: false }],
    ['partner, empty header', partner, '', { scope: { partnerId: 'p1', merchantId: undefined }, ownerUnchecked: false }],
    [
      'partner naming a merchant: left for the reading statement to check',
      partner,
      'MR9',
      { scope: { partnerId: 'p1', merchantId: 'MR9' }, ownerUnchecked: true },
    ],
    ['merchant, no header', merchant, undefined, { scope: { partnerId: 'p1', merchantId: 'MR1' }, ownerUnchecked: false }],
    ['merchant naming itself', merchant, 'MR1', { scope: { partnerId: 'p1', merchantId: 'MR1' }, ownerUnchecked: false }],
  ] as const)('%s', (_label, principal, header, expected) => {
    expect(claimScope(principal, header)).toEqual(expected);
  });

  it('a merchant naming another merchant is 403 ERR_AUTH_403 on x-merchant-id', () => {
    expect(() => claimScope(merchant, 'MR2')).toThrow(
      expect.objectContaining({ code: 'ERR_AUTH_403', details: { 'x-merchant-id': 'must equal the merchant id of the credentials' } }),
    );
  });
});
