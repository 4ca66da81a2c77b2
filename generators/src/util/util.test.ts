import { describe, expect, it } from 'vitest';
import {
  camelCase,
  methodNameForTag,
  pascalCase,
  propertyKey,
  safeIdentifier,
  singularize,
  synthesizeOperationId,
  toExpressPath,
  words,
} from './naming.js';
import { compareStrings, sortBy, sortedEntries, sortKeysDeep } from './sorted.js';

describe('sorted helpers', () => {
  it('sortedEntries sorts by code point regardless of insertion order and tolerates non-objects', () => {
    expect(sortedEntries({ b: 1, a: 2, B: 3, _: 4 })).toEqual([
      ['B', 3],
      ['_', 4],
      ['a', 2],
      ['b', 1],
    ]);
    expect(sortedEntries(undefined)).toEqual([]);
    expect(sortedEntries(null)).toEqual([]);
  });
  it('sortKeysDeep sorts nested keys but keeps array order', () => {
    expect(JSON.stringify(sortKeysDeep({ b: { d: 1, c: [{ z: 1, y: 2 }] }, a: 0 }))).toBe('{"a":0,"b":{"c":[{"y":2,"z":1}],"d":1}}');
  });
  it('compareStrings / sortBy are locale-independent', () => {
    expect(['b', 'a', 'B'].sort(compareStrings)).toEqual(['B', 'a', 'b']);
    expect(sortBy([{ k: 'z' }, { k: 'a' }], (x) => x.k)).toEqual([{ k: 'a' }, { k: 'z' }]);
  });
});

describe('naming', () => {
  it('splits and re-cases identifiers', () => {
    expect(words('repos/list-for-org')).toEqual(['repos', 'list', 'for', 'org']);
    expect(words('getHTTPStatus_code')).toEqual(['get', 'http', 'status', 'code']);
    expect(camelCase('Webhook Endpoints')).toBe('webhookEndpoints');
    expect(pascalCase('PAYMENT_FAILED')).toBe('PaymentFailed');
    expect(pascalCase('3ds')).toBe('_3ds');
    expect(safeIdentifier('delete')).toBe('delete_');
    expect(safeIdentifier('order_id')).toBe('orderId');
  });
  it('singularizes common plurals', () => {
    expect(['refunds', 'entries', 'addresses', 'status', 'matches', 'analysis'].map(singularize)).toEqual([
      'refund',
      'entry',
      'address',
      'status',
      'match',
      'analysis',
    ]);
  });
  it('synthesises stable operationIds from method + path', () => {
    expect(synthesizeOperationId('GET', '/pg/orders/{order_id}/')).toBe('getPgOrdersByOrderId');
    expect(synthesizeOperationId('post', '/')).toBe('post');
  });
  it('converts path templates to Express 5 paths, quoting non-identifier names', () => {
    expect(toExpressPath('/pg/orders/{order_id}/documents/')).toBe('/pg/orders/:order_id/documents/');
    expect(toExpressPath('/things/{thing-id}')).toBe('/things/:"thing-id"');
  });
  it('quotes property keys only when needed', () => {
    expect(propertyKey('order_id')).toBe('order_id');
    expect(propertyKey('X-Merchant-ID')).toBe('"X-Merchant-ID"');
  });
  it.each([
    ['createOrder', 'Orders', 'create'],
    ['getOrder', 'Orders', 'get'],
    ['listRefunds', 'Refunds', 'list'],
    ['uploadOrderDocument', 'Orders', 'uploadDocument'],
    ['createWebhookEndpoint', 'Webhook Endpoints', 'create'],
    ['listWebhookEndpoints', 'Webhook Endpoints', 'list'],
    ['repos/list-for-org', 'repos', 'listForOrg'],
    ['createMerchantCredentials', 'Partners', 'createMerchantCredentials'],
    ['orders', 'Orders', 'orders'],
    ['getOrderbook', 'Orders', 'getOrderbook'],
    ['getHealth', undefined, 'getHealth'],
  ])('methodNameForTag(%s, %s) = %s', (operationId, tag, expected) => {
    expect(methodNameForTag(operationId, tag)).toBe(expected);
  });
});
