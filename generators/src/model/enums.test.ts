import { describe, expect, it } from 'vitest';
import { collectEnums } from './enums.js';

describe('collectEnums', () => {
  it('names component enums and property enums (shared, qualified when ambiguous)', () => {
    const enums = collectEnums([
      { name: 'MopType', schema: { type: 'string', enum: ['UPI', 'QR'] } },
      {
        name: 'Order',
        schema: {
          type: 'object',
          properties: { status: { enum: ['open', 'closed'] }, mop_type: { enum: ['UPI'] }, mode: { enum: ['a', 'b'] } },
        },
      },
      {
        name: 'OrderPatch',
        schema: { type: 'object', properties: { mode: { enum: ['a', 'b'] }, tags: { type: 'array', items: { enum: ['x'] } } } },
      },
      { name: 'Refund', schema: { type: 'object', properties: { status: { enum: ['done'] } } } },
      { name: 'Plain', schema: { type: 'object', properties: { n: { type: 'integer' } } } },
    ]);
    expect(enums.map((e) => [e.name, e.values, e.pointers.length])).toEqual([
      ['Mode', ['a', 'b'], 2],
      ['MopType', ['UPI', 'QR'], 1],
      ['OrderMopType', ['UPI'], 1],
      ['OrderStatus', ['open', 'closed'], 1],
      ['RefundStatus', ['done'], 1],
      ['Tags', ['x'], 1],
    ]);
    expect(enums.find((e) => e.name === 'Tags')!.pointers).toEqual(['#/components/schemas/OrderPatch/properties/tags/items']);
  });
});
