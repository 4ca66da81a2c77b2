import { AsyncLocalStorage } from 'node:async_hooks';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyParsers, findNulCharacter } from './lifecycle/parse-body.js';
import { isPlainJson } from './body-limits.js';
import { collectMalformedUnicode } from './request-validation.js';

/**
 * D182: plain JSON (application/json in UTF-8 with a Content-Length) is read by readPlainJson instead of body-parser.
 * Each request goes to two servers, one behind `bodyParsers` (the fast path) and one behind body-parser's own `json()`
 * with the same options: the parsed body, or the error's status and `type` (all the error classifier reads), must be
 * the same.
 */

const LIMIT = 4096;

function echoServer(parsers: RequestHandler[]): Server {
  const app = express();
  app.post('/echo', ...parsers, (req: Request, res: Response) => {
    res.json({ body: req.body === undefined ? '(undefined)' : req.body });
  });
  app.use((err: { status?: number; type?: string }, _req: Request, res: Response, _next: NextFunction) => {
    res.status(err.status ?? 500).json({ error: { status: err.status, type: err.type } });
  });
  return app.listen(0, '127.0.0.1');
}

const servers: Server[] = [];
let fast: number;
let reference: number;
beforeAll(async () => {
  const a = echoServer(bodyParsers(LIMIT));
  const b = echoServer([express.json({ limit: LIMIT, type: ['application/json', 'application/*+json'], strict: false })]);
  servers.push(a, b);
  await Promise.all(servers.map((s) => new Promise((resolve) => s.once('listening', resolve))));
  fast = (a.address() as AddressInfo).port;
  reference = (b.address() as AddressInfo).port;
});
afterAll(() => Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve())))));

/** POST the bytes in `chunks` (written separately) with `headers`; the status and body text answered. */
function post(port: number, headers: Record<string, string>, chunks: Buffer[]): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path: '/echo', method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    for (const c of chunks) req.write(c);
    req.end();
  });
}

const utf8 = (s: string) => Buffer.from(s, 'utf8');
const cases: { name: string; type: string; chunks: Buffer[]; plain: boolean }[] = [
  { name: 'an object', type: 'application/json', chunks: [utf8('{"a":1,"b":[true,null,"x"]}')], plain: true },
  { name: 'an array', type: 'application/json', chunks: [utf8('[1,2,3]')], plain: true },
  { name: 'charset=utf-8, upper case', type: 'Application/JSON; charset=UTF-8', chunks: [utf8('{"a":"é"}')], plain: true },
  { name: 'no space before charset', type: 'application/json;charset=utf-8', chunks: [utf8('{"a":2}')], plain: true },
  { name: 'a leading BOM', type: 'application/json', chunks: [Buffer.from([0xef, 0xbb, 0xbf]), utf8('{"bom":true}')], plain: true },
  { name: 'leading whitespace', type: 'application/json', chunks: [utf8(' \n\t{"a":1}')], plain: true },
  {
    name: 'a multi-byte character split across chunks',
    type: 'application/json',
    chunks: [Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xe2, 0x82]), Buffer.from([0xac, 0x22, 0x7d])],
    plain: true,
  },
  {
    name: 'invalid UTF-8 (replaced)',
    type: 'application/json',
    chunks: [Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d])],
    plain: true,
  },
  { name: 'a lone surrogate escape (kept for validation)', type: 'application/json', chunks: [utf8('{"a":"\\ud800"}')], plain: true },
  { name: 'malformed JSON', type: 'application/json', chunks: [utf8('{"a":')], plain: true },
  { name: 'a number at the top (any JSON value, D431)', type: 'application/json', chunks: [utf8('42')], plain: true },
  { name: 'a string at the top (any JSON value, D431)', type: 'application/json', chunks: [utf8(' "x"')], plain: true },
  { name: 'null at the top (any JSON value, D431)', type: 'application/json', chunks: [utf8('null')], plain: true },
  { name: 'only whitespace', type: 'application/json', chunks: [utf8('   ')], plain: true },
  { name: 'only a BOM', type: 'application/json', chunks: [Buffer.from([0xef, 0xbb, 0xbf])], plain: true },
  { name: 'trailing garbage', type: 'application/json', chunks: [utf8('{"a":1} x')], plain: true },
  {
    name: 'a charset other than utf-8 (body-parser: 415)',
    type: 'application/json; charset=latin1',
    chunks: [utf8('{"a":1}')],
    plain: false,
  },
  { name: 'charset=utf8 (body-parser: 415)', type: 'application/json; charset=utf8', chunks: [utf8('{"a":1}')], plain: false },
  { name: 'a +json type', type: 'application/merge-patch+json', chunks: [utf8('{"a":1}')], plain: false },
];

describe('plain JSON bodies (D182): the same answers as body-parser', () => {
  it.each(cases)('$name', async ({ type, chunks, plain }) => {
    const length = chunks.reduce((n, c) => n + c.length, 0);
    const headers = { 'Content-Type': type, 'Content-Length': String(length) };
    const [a, b] = await Promise.all([post(fast, headers, chunks), post(reference, headers, chunks)]);
    expect(a.status).toBe(b.status);
    expect(JSON.parse(a.text)).toEqual(JSON.parse(b.text));
    expect(isPlainJson({ headers: { 'content-type': type, 'content-length': String(length) } } as never, LIMIT)).toBe(plain);
  });

  it.each([
    { name: 'no Content-Length (chunked)', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
    { name: 'Content-Length 0', headers: { 'content-type': 'application/json', 'content-length': '0' } },
    { name: 'over the limit', headers: { 'content-type': 'application/json', 'content-length': String(LIMIT + 1) } },
    { name: 'gzip', headers: { 'content-type': 'application/json', 'content-length': '10', 'content-encoding': 'gzip' } },
    { name: 'a form', headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': '3' } },
    { name: 'no Content-Type', headers: { 'content-length': '3' } },
  ])('is left to body-parser: $name', ({ headers }) => {
    expect(isPlainJson({ headers } as never, LIMIT)).toBe(false);
  });

  it('a request cut off mid-body ends as request.aborted, as with raw-body (and the handler never runs)', async () => {
    const seen: string[] = [];
    const app = express();
    app.post('/echo', ...bodyParsers(LIMIT), (_req: Request, res: Response) => {
      seen.push('handler');
      res.json({});
    });
    app.use((err: { type?: string }, _req: Request, res: Response, _next: NextFunction) => {
      seen.push(String(err.type));
      res.status(400).end();
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
      await new Promise((resolve) => socket.once('connect', resolve));
      socket.write('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":');
      await new Promise((resolve) => setTimeout(resolve, 100));
      socket.destroy();
      await expect.poll(() => seen, { timeout: 5000 }).toEqual(['request.aborted']);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('the request goes on in the async context it came in with, as after raw-body (an AsyncLocalStorage entered around the app)', async () => {
    const als = new AsyncLocalStorage<string>();
    const app = express();
    app.post('/echo', ...bodyParsers(LIMIT), (req: Request, res: Response) => {
      res.json({ store: als.getStore() ?? null, parsed: req.body });
    });
    const server = createServer((req, res) => als.run(`request ${req.headers['x-n']}`, () => app(req, res)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const body = Buffer.from('{"a":1}');
      for (const n of ['1', '2']) {
        const res = await post(port, { 'Content-Type': 'application/json', 'Content-Length': String(body.length), 'X-N': n }, [body]);
        expect(JSON.parse(res.text)).toEqual({ store: `request ${n}`, parsed: { a: 1 } });
      }
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('takes identity Content-Encoding and the limit itself', () => {
    const headers = { 'content-type': 'application/json', 'content-encoding': 'Identity', 'content-length': String(LIMIT) };
    expect(isPlainJson({ headers } as never, LIMIT)).toBe(true);
  });
});

describe('the body walks (D184: the surrogate walk writes a pointer only for what it reports; the NUL search as before)', () => {
  const lone = '\ud800';
  it.each([
    { name: 'a clean body', body: { a: 'x', b: [1, 'y', { c: 'é😀' }], d: null }, pointers: [] },
    { name: 'a string at depth', body: { a: { b: ['ok', lone] } }, pointers: ['/body/a/b/1'] },
    { name: 'a key with ~ and /', body: { 'x~/y': { z: lone } }, pointers: ['/body/x~0~1y/z'] },
    { name: 'a malformed key (its value is not visited)', body: { [`k${lone}`]: lone }, pointers: [`/body/k${lone}`] },
    { name: 'a lone low surrogate at the top of an array', body: ['\udc00', 'ok', `a${lone}b`], pointers: ['/body/0', '/body/2'] },
    { name: 'an empty key', body: { '': lone }, pointers: ['/body/'] },
  ])('unpaired surrogates: $name', ({ body, pointers }) => {
    const out: { instancePath: string }[] = [];
    collectMalformedUnicode(body, '/body', out as never);
    expect(out.map((e) => e.instancePath)).toEqual(pointers);
  });

  it('stops at 20 reports', () => {
    const out: unknown[] = [];
    collectMalformedUnicode(
      Array.from({ length: 30 }, () => lone),
      '/body',
      out as never,
    );
    expect(out).toHaveLength(20);
  });

  it.each([
    { body: { a: 'ok', b: { c: ['x', 'y\u0000'] } }, path: 'b.c[1]' },
    { body: { a: 'ok', n: 1, z: null, l: [[['deep']]] }, path: undefined },
    { body: { '': 'a\u0000' }, path: '' },
    { body: ['a', ['b', 'c\u0000']], path: '1[1]' }, // as before D184: a top-level index is written bare
  ])('NUL characters: $path', ({ body, path }) => {
    expect(findNulCharacter(body)).toBe(path);
  });
});
