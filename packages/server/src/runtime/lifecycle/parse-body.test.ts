import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
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

  it.each([
    { name: 'text/json declared: read as JSON', declared: ['text/json'], type: 'text/json', body: '{"a":1}', parsed: { a: 1 } },
    {
      name: 'text/json with a charset',
      declared: ['text/json; charset=utf-8'],
      type: 'text/json; charset=utf-8',
      body: '[1]',
      parsed: [1],
    },
    {
      name: 'application/x-json declared',
      declared: ['application/x-json'],
      type: 'application/x-json',
      body: '{"a":1}',
      parsed: { a: 1 },
    },
    {
      name: 'text/json not declared: the text (a `text/*` operation gets its text)',
      declared: ['text/*'],
      type: 'text/json',
      body: '{"a":1}',
      parsed: '{"a":1}',
    },
    { name: 'a +json suffix, always', declared: [], type: 'application/merge-patch+json', body: '{"a":1}', parsed: { a: 1 } },
    {
      name: 'ndjson declared: the lines',
      declared: ['application/ndjson'],
      type: 'application/ndjson',
      body: '{"a":1}\n{"a":2}\n',
      parsed: [{ a: 1 }, { a: 2 }],
    },
    {
      name: 'ndjson not declared: not read',
      declared: ['application/json'],
      type: 'application/ndjson',
      body: '{"a":1}\n',
      parsed: '(none)',
    },
  ])("the spec's media types read as JSON or line by line (D484): $name", async ({ declared, type, body, parsed }) => {
    const app = express();
    app.post('/', ...bodyParsers('1kb', undefined, [{ requestMediaTypes: declared }]), (req: Request, res: Response) => {
      res.json({ body: req.body ?? '(none)' });
    });
    app.use((err: { status?: number }, _req: Request, res: Response, _next: NextFunction) => {
      res.status(err.status ?? 500).json({ error: err.status });
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const res = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, {
        method: 'POST',
        headers: { 'content-type': type },
        body,
      });
      expect(await res.json()).toEqual({ body: parsed });
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
