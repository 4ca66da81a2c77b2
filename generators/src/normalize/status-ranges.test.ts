import { describe, expect, it } from 'vitest';
import { UnsupportedSpecError } from '../parse/refusal.js';
import { normalizeStatusRanges } from './status-ranges.js';

const op = (responses: object) => ({ responses });

describe('normalizeStatusRanges (D199)', () => {
  it('spells every range 4XX in operations of paths, webhooks, callbacks and components.pathItems, keeping key order', () => {
    const document = {
      openapi: '3.1.0',
      paths: {
        '/a': {
          get: {
            ...op({
              '200': { description: 'ok' },
              '4xx': { description: 'client' },
              '5Xx': { description: 'server' },
              default: { description: 'd' },
            }),
            callbacks: { onEvent: { '{$request.body#/url}': { post: op({ '2xx': { description: 'ack' } }) } } },
          },
          parameters: [],
        },
      },
      webhooks: { ping: { post: op({ '2xx': { description: 'ack' } }) } },
      components: {
        pathItems: { Shared: { put: op({ '4xx': { description: 'no' } }) } },
        callbacks: { Cb: { '{$url}': { post: op({ '5xx': { description: 'retry' } }) } } },
        // names, not statuses: left alone
        responses: { '4xx': { description: 'a response component named 4xx' } },
      },
    };
    const before = JSON.stringify(document);
    const { document: out, renamed } = normalizeStatusRanges(document, 'spec.yaml');
    expect(JSON.stringify(document)).toBe(before);
    const get = out.paths['/a'].get as unknown as {
      responses: object;
      callbacks: Record<string, Record<string, { post: { responses: object } }>>;
    };
    expect(Object.keys(get.responses)).toEqual(['200', '4XX', '5XX', 'default']);
    expect(Object.keys(get.callbacks.onEvent!['{$request.body#/url}']!.post.responses)).toEqual(['2XX']);
    expect(Object.keys((out.webhooks.ping.post as { responses: object }).responses)).toEqual(['2XX']);
    expect(Object.keys(out.components.pathItems.Shared.put.responses)).toEqual(['4XX']);
    expect(Object.keys(out.components.callbacks.Cb['{$url}'].post.responses)).toEqual(['5XX']);
    expect(Object.keys(out.components.responses)).toEqual(['4xx']);
    expect(renamed.map((r) => `${r.pointer} ${r.from}->${r.to}`)).toEqual([
      '#/paths/~1a/get/responses 4xx->4XX',
      '#/paths/~1a/get/responses 5Xx->5XX',
      '#/paths/~1a/get/callbacks/onEvent/{$request.body#~1url}/post/responses 2xx->2XX',
      '#/webhooks/ping/post/responses 2xx->2XX',
      '#/components/pathItems/Shared/put/responses 4xx->4XX',
      '#/components/callbacks/Cb/{$url}/post/responses 5xx->5XX',
    ]);
  });

  it('returns the document itself when every range is spelled 4XX already', () => {
    const document = { paths: { '/a': { get: op({ '4XX': { description: 'x' }, '404': { description: 'y' } }) } } };
    expect(normalizeStatusRanges(document, 'spec.yaml').document).toBe(document);
  });

  it('refuses one range written in two spellings, naming the pointer and the fix', () => {
    const document = { paths: { '/a': { get: op({ '4XX': { description: 'x' }, '4xx': { description: 'y' } }) } } };
    let refusal: unknown;
    try {
      normalizeStatusRanges(document, 'spec.yaml');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(UnsupportedSpecError);
    expect(refusal).toMatchObject({
      file: 'spec.yaml',
      pointer: '#/paths/~1a/get/responses/4xx',
      fix: 'merge the two responses into one 4XX entry.',
    });
  });
});
