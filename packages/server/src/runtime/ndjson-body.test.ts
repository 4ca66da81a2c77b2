/** runtime/ndjson-body.ts: ndjson bodies read line by line within the body limit (D484, "JSON bodies by media type name, ndjson line by line"). */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readingAtMost } from './body-limits.js';
import { ndjsonLineRejection, ndjsonParser, parseNdjson } from './ndjson-body.js';

describe('parseNdjson', () => {
  it.each([
    ['one value per line', '{"a":1}\n{"a":2}', [{ a: 1 }, { a: 2 }]],
    ['a final newline is no value', '{"a":1}\n', [{ a: 1 }]],
    ['CRLF line ends', '{"a":1}\r\n[1,2]\r\n', [{ a: 1 }, [1, 2]]],
    ['blank lines are skipped', '\n{"a":1}\n  \n"x"\n\n', [{ a: 1 }, 'x']],
    ['any JSON value on a line', '1\nnull\ntrue', [1, null, true]],
    ['an empty text: no values', '', []],
  ] as [string, string, unknown[]][])('%s', (_name, text, values) => {
    expect(parseNdjson(text)).toEqual(values);
  });

  it.each([
    ['the second line is not JSON', '{"a":1}\n{a:2}\n', { line: 2, index: 1 }],
    ['after a blank line: the line counts it, the index does not', '{"a":1}\n\n[1,\n', { line: 3, index: 1 }],
    ['two values on one line', '{"a":1} {"a":2}', { line: 1, index: 0 }],
  ] as [string, string, { line: number; index: number }][])('%s', (_name, text, where) => {
    expect(parseNdjson(text)).toMatchObject(where);
  });

  it('a line that is not JSON is a 400 at its value, naming the line', () => {
    const rejection = ndjsonLineRejection({ line: 3, index: 1, reason: 'Unexpected token' });
    expect([rejection.status, rejection.errors]).toEqual([
      400,
      [{ path: '/body/1', message: 'line 3 is not valid JSON (Unexpected token)' }],
    ]);
  });
});

describe('ndjsonParser', () => {
  const LIMIT = 64;
  let server: Server;
  let url: string;
  beforeAll(async () => {
    const app = express();
    app.post(
      '/bulk',
      readingAtMost(ndjsonParser(LIMIT, ['application/ndjson', 'application/x-ndjson']), LIMIT),
      (req: Request, res: Response) => {
        res.json({ body: req.body ?? '(none)' });
      },
    );
    app.use((err: { status?: number; type?: string; errors?: unknown }, _req: Request, res: Response, _next: NextFunction) => {
      res.status(err.status ?? 500).json({ status: err.status, type: err.type, errors: err.errors });
    });
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/bulk`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const post = async (type: string, body: string) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': type }, body });
    return { status: res.status, json: (await res.json()) as unknown };
  };

  it.each([
    {
      name: 'ndjson: the lines as an array',
      type: 'application/ndjson',
      body: '{"a":1}\n{"a":2}\n',
      status: 200,
      json: { body: [{ a: 1 }, { a: 2 }] },
    },
    { name: 'x-ndjson with a charset', type: 'application/x-ndjson; charset=utf-8', body: '[1]\n', status: 200, json: { body: [[1]] } },
    {
      name: 'a line that is not JSON: 400 naming it',
      type: 'application/ndjson',
      body: '{"a":1}\nnope\n',
      status: 400,
      json: { status: 400, errors: [{ path: '/body/1', message: expect.stringMatching(/^line 2 is not valid JSON/) }] },
    },
    { name: 'another media type: not read', type: 'application/json', body: '{"a":1}', status: 200, json: { body: '(none)' } },
    {
      name: 'past the limit: 413',
      type: 'application/ndjson',
      body: `${'{"a":1}\n'.repeat(10)}`,
      status: 413,
      json: { status: 413, type: 'entity.too.large' },
    },
  ])('$name', async ({ type, body, status, json }) => {
    const answer = await post(type, body);
    expect(answer.status).toBe(status);
    expect(answer.json).toMatchObject(json);
  });
});
