import { describe, expect, it } from 'vitest';
import { buildCallbacks } from './callbacks.js';
import { RefResolver } from './ref-resolver.js';

describe('buildCallbacks', () => {
  it('lists each callback expression with its operations and their bodies, sorted by name', () => {
    const raw = {
      onPaid: {
        '{$request.body#/url}': {
          post: { summary: 'paid', requestBody: { content: { 'application/json': { schema: { type: 'object' } } } } },
        },
      },
      aShared: { $ref: '#/components/callbacks/Shared' },
    };
    const document = { components: { callbacks: { Shared: { '{$request.query.cb}': { put: {}, get: {} } } } } };
    const callbacks = buildCallbacks(new RefResolver(document), raw, '#/paths/~1a/post/callbacks');
    expect(callbacks.map((c) => [c.name, c.expression, c.operations.map((o) => o.method)])).toEqual([
      ['aShared', '{$request.query.cb}', ['get', 'put']],
      ['onPaid', '{$request.body#/url}', ['post']],
    ]);
    expect(callbacks[1]?.operations[0]?.requestBody?.content[0]?.node?.pointer).toBe(
      '#/paths/~1a/post/callbacks/onPaid/{$request.body#~1url}/post/requestBody/content/application~1json/schema',
    );
  });
});
