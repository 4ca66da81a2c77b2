import { describe, expect, it } from 'vitest';
import { collectErrorCatalogue, collectErrorCodes } from './error-codes.js';

describe('error codes and catalogue', () => {
  it('reads the error catalogue', () => {
    expect(
      collectErrorCatalogue({
        components: {
          schemas: { ErrorCode: { enum: ['B', 'A'], 'x-error-catalogue': { B: { status: 404, when: 'gone' }, A: { status: 400 } } } },
        },
      }),
    ).toEqual([
      { code: 'A', status: 400, when: undefined },
      { code: 'B', status: 404, when: 'gone' },
    ]);
  });

  it('reads x-error-codes at the document root, sorted', () => {
    expect(collectErrorCodes({ 'x-error-codes': ['B', 'A'] })).toEqual(['A', 'B']);
  });
});
