/** runtime/body-dispatch.ts: which operations a body tells apart, and the one it chooses (D485, "Operations told apart by their bodies dispatched by body schema"). */
import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { type BodyContender, chosenByBody, toldApartByBody } from './body-dispatch.js';

const yes = () => true;
const contender = (over: Partial<BodyContender> & { media?: string[]; security?: unknown[] } = {}): BodyContender => ({
  operation: { requestMediaTypes: over.media ?? ['application/json'], security: (over.security ?? []) as never },
  bodyAt: 'bodyAt' in over ? over.bodyAt : 1,
  acceptsBody: 'acceptsBody' in over ? over.acceptsBody : yes,
});

describe('toldApartByBody', () => {
  it.each([
    ['both read and check a JSON body', contender(), contender(), true],
    ['a media type in common', contender({ media: ['application/json', 'text/plain'] }), contender({ media: ['text/plain'] }), true],
    ['no media type in common (the media type tells them apart)', contender(), contender({ media: ['image/png'] }), false],
    ['one reads no body', contender(), contender({ bodyAt: undefined }), false],
    ['one cannot check its body (multipart)', contender(), contender({ acceptsBody: undefined }), false],
    ['guarded differently (another security)', contender({ security: [{ key: [] }] }), contender(), false],
    ['their bodies read after other steps', contender({ bodyAt: 2 }), contender(), false],
  ] as [string, BodyContender, BodyContender, boolean][])('%s: %s', (_name, a, b, expected) => {
    expect(toldApartByBody(a, b)).toBe(expected);
  });
});

describe('chosenByBody', () => {
  const req = {} as Request;
  const named = (name: string, accepts: boolean) => ({ name, acceptsBody: () => accepts });
  it.each([
    ['the first accepts: the first', [named('a', true), named('b', true)], 'a'],
    ['only the second accepts', [named('a', false), named('b', true)], 'b'],
    ['none accepts: the first (its validation names its fields)', [named('a', false), named('b', false)], 'a'],
  ] as [string, [{ name: string; acceptsBody: () => boolean }, ...{ name: string; acceptsBody: () => boolean }[]], string][])(
    '%s',
    (_name, contenders, expected) => {
      expect(chosenByBody(contenders, req).name).toBe(expected);
    },
  );
});
