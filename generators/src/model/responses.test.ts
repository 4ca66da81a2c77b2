import { describe, expect, it } from 'vitest';
import { RefResolver } from './ref-resolver.js';
import { buildResponses } from './responses.js';

const document = {
  components: {
    responses: {
      NotFound: {
        description: 'gone',
        content: { 'application/json': { schema: { type: 'object' } } },
        headers: { 'X-Id': { schema: { type: 'string' } } },
      },
    },
  },
};
const build = (raw: unknown) => buildResponses(new RefResolver(document), raw, '#/paths/~1a/get/responses');

describe('buildResponses', () => {
  it('orders exact codes, then ranges (spelled 4XX), then default; skips x- keys', () => {
    const responses = build({
      default: { description: 'd' },
      '4xx': { description: 'r' },
      '404': { description: 'n' },
      '200': {},
      'x-note': {},
    });
    expect(responses.map((r) => [r.status, r.kind])).toEqual([
      ['200', 'exact'],
      ['404', 'exact'],
      ['4XX', 'range'],
      ['default', 'default'],
    ]);
  });

  it('gives a range the codes no exact entry of the operation takes', () => {
    const range = build({ '404': {}, '4XX': {} }).find((r) => r.kind === 'range')!;
    expect(range.statusCodes).toHaveLength(99);
    expect(range.statusCodes).not.toContain(404);
  });

  it('follows a $ref to a shared response: its description, content (with the node at the target) and headers', () => {
    const [response] = build({ '404': { $ref: '#/components/responses/NotFound' } });
    expect(response).toMatchObject({ description: 'gone', content: [{ mediaType: 'application/json' }], headers: [{ name: 'X-Id' }] });
    expect(response!.content[0]!.node?.pointer).toBe('#/components/responses/NotFound/content/application~1json/schema');
  });
});
