/** The corpus probe's valid requests (scaffold-probe.ts): what it sends for a parameter, read as the scaffold reads it. */
import { describe, expect, it } from 'vitest';
import { SpecProbe } from './scaffold-probe.js';

const document = (path: string, item: Record<string, unknown>) => ({
  openapi: '3.0.3',
  info: { title: 'T', version: '1' },
  paths: { [path]: item },
});
const ok = { responses: { '200': { description: 'ok' } } };

describe('SpecProbe valid requests', () => {
  it.each([
    [
      // D470 a parameter enum of another type read as its text
      'a string path parameter with an enum of integers',
      document('/verses/{verse}', {
        get: { ...ok, parameters: [{ name: 'verse', in: 'path', required: true, schema: { type: 'string', enum: [1, 2], default: 1 } }] },
      }),
      { url: 'http://probe.invalid/verses/1' },
    ],
    [
      'an integer path parameter with an enum of strings',
      document('/ratings/{rating}', {
        get: {
          ...ok,
          parameters: [{ name: 'rating', in: 'path', required: true, schema: { type: 'integer', enum: ['9', '10'], example: '9' } }],
        },
      }),
      { url: 'http://probe.invalid/ratings/9' },
    ],
    [
      'a path parameter declared with content',
      document('/reports/{id}', {
        get: {
          ...ok,
          parameters: [{ name: 'id', in: 'path', required: true, content: { '*/*': { schema: { type: 'string', format: 'uuid' } } } }],
        },
      }),
      { url: 'http://probe.invalid/reports/3f1c2b8e-7d4a-4e59-9b1f-2a6c8d0e5f71' },
    ],
    [
      // D413 object path parameters read by their style: Jellyfin's `version`, every property optional, sampled whole
      'an object path parameter, simple',
      document('/Plugins/{version}', {
        delete: {
          ...ok,
          parameters: [
            {
              name: 'version',
              in: 'path',
              required: true,
              schema: {
                type: 'object',
                additionalProperties: false,
                properties: { Major: { type: 'integer' }, Minor: { type: 'integer' } },
              },
            },
          ],
        },
      }),
      { url: 'http://probe.invalid/Plugins/Major,1,Minor,1' },
    ],
    [
      'an array path parameter, matrix, exploded',
      document('/pets/{ids}', {
        get: {
          ...ok,
          parameters: [
            {
              name: 'ids',
              in: 'path',
              required: true,
              style: 'matrix',
              explode: true,
              schema: { type: 'array', minItems: 2, items: { type: 'string', enum: ['cat'] } },
            },
          ],
        },
      }),
      { url: 'http://probe.invalid/pets/;ids=cat;ids=cat' },
    ],
    [
      // Sinao's `POST /apps/{appId}/stripe/import/launch`: `{x-ype: string}`, a typo of `type`, takes any value
      'a required query parameter whose schema says nothing of its shape',
      document('/import', {
        post: { ...ok, parameters: [{ name: 'public_key', in: 'query', required: true, schema: { 'x-ype': 'string' } }] },
      }),
      { url: 'http://probe.invalid/import?public_key=sample' },
    ],
    [
      // header names are case-insensitive: the operation's parameter overrides the path item's, one header is sent
      "an operation's header overriding its path item's in another case",
      document('/publish', {
        parameters: [{ name: 'X-Amz-Content-Sha256', in: 'header', schema: { type: 'string' } }],
        post: {
          ...ok,
          parameters: [
            { name: 'x-amz-content-sha256', in: 'header', required: true, schema: { type: 'string', pattern: '^[0-9a-f]{4}$' } },
          ],
        },
      }),
      { headers: ['x-amz-content-sha256'] },
    ],
  ])('%s', (_label, spec, expected) => {
    const probe = new SpecProbe(spec as never);
    const request = probe.request(probe.operations[0]!, 'valid', 'http://probe.invalid', {}, {})!;
    if ('url' in expected) expect(request.url).toBe(expected.url);
    if ('headers' in expected) {
      expect(Object.keys(request.headers).map((h) => h.toLowerCase())).toEqual(expected.headers);
      expect(Object.values(request.headers)[0]).toMatch(/^[0-9a-f]{4}$/);
    }
  });
});
