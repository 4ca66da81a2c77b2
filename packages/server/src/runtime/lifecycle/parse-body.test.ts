import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import type { HttpError } from '../errors.js';
import type { OperationRoute } from '../types.js';
import { assertNoNulCharacters, bodyParsers, findNulCharacter, parseBodySteps, uploadLimitsOf } from './parse-body.js';

// The parsers' answers (413, malformed JSON, charsets, the plain-JSON fast path against body-parser) are tested in
// ../plain-json.test.ts and ../body-limits.test.ts; here, what the step decides.
describe('parse-body step', () => {
  it('upload limits: the defaults, and the largest multipart body they accept (every part at its limit + 64 KiB)', () => {
    expect(uploadLimitsOf({})).toEqual({
      uploadLimits: { fileSize: 5 * 1024 * 1024, files: 1, fields: 20, fieldSize: 64 * 1024 },
      multipartLimitBytes: 5 * 1024 * 1024 + 20 * 64 * 1024 + 64 * 1024,
    });
    expect(uploadLimitsOf({ fileSize: 100, files: 3, fields: 2, fieldSize: 10 }).multipartLimitBytes).toBe(300 + 20 + 64 * 1024);
  });

  it('an operation that declares no request body reads none; the others run the parsers, as ONE step (D182)', () => {
    const parsers = bodyParsers('1kb');
    expect(parsers).toHaveLength(1);
    const op = (requestMediaTypes: string[]) => ({ requestMediaTypes }) as unknown as OperationRoute;
    expect(parseBodySteps(op([]), parsers)).toEqual([]);
    expect(parseBodySteps(op(['application/json']), parsers)).toBe(parsers);
  });

  describe('NUL characters', () => {
    it('findNulCharacter names the JSON path of the first string holding NUL', () => {
      expect(findNulCharacter({ a: 'ok', b: { c: ['x', 'y\u0000'] } })).toBe('b.c[1]');
      expect(findNulCharacter({ a: 'ok', n: 1, z: null })).toBeUndefined();
      expect(findNulCharacter('\u0000')).toBe('');
    });

    const refusal = (body: unknown, query: unknown): HttpError | undefined => {
      try {
        assertNoNulCharacters({ body } as Request, query);
        return undefined;
      } catch (error) {
        return error as HttpError;
      }
    };

    it('a body field or a query parameter holding NUL is 400 naming it', () => {
      expect(refusal({ name: 'a\u0000b' }, {})?.details).toEqual({ name: 'must not contain NUL (\\u0000) characters' });
      expect(refusal({ name: 'ok' }, { q: ['x', '\u0000'] })?.details).toEqual({ 'q[1]': 'must not contain NUL (\\u0000) characters' });
      expect(refusal({ name: 'ok' }, {})).toBeUndefined();
    });

    it('a whole body that is a NUL string is named `body`', () => {
      const error = refusal('\u0000', {});
      expect([error?.status, error?.code, error?.details]).toEqual([
        400,
        'ERR_VALIDATION_400',
        { body: 'must not contain NUL (\\u0000) characters' },
      ]);
    });
  });
});
