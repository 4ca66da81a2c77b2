/** runtime/media-type.ts: a declared media type key as a Content-Type header can carry it. */
import { describe, expect, it } from 'vitest';
import { sendableMediaType } from './media-type.js';

describe('sendableMediaType', () => {
  it.each([
    ['application/json', 'application/json'],
    ['application/json; charset=utf-8', 'application/json; charset=utf-8'],
    ['application/json;charset=utf-8', 'application/json;charset=utf-8'],
    ['application/vnd.api+json', 'application/vnd.api+json'],
    ['application/json, charset=utf-8', 'application/json'],
    ['text/plain, text/html', 'text/plain'],
    ['not a media type', 'application/octet-stream'],
  ] as [string, string][])('%s is sent as %s', (declared, expected) => {
    expect(sendableMediaType(declared)).toBe(expected);
  });
});
