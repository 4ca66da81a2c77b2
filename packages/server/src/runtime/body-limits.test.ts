import type { Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiDocument } from '../../../../test/fixtures/mini/generated/contract/api-document.gen.js';
import type { Handlers } from '../../../../test/fixtures/mini/generated/server/handlers.gen.js';
import { operations, securitySchemes } from '../../../../test/fixtures/mini/generated/contract/operations.gen.js';
import { requestValidators } from '../../../../test/fixtures/mini/generated/server/request-validators.gen.js';
import { createApiApp } from './app.js';
import { limitInBytes } from './body-limits.js';

/**
 * D96 over real sockets: an answer sent while the body is still arriving closes the connection, and an oversize body
 * is refused without being read to its end (from Content-Length before reading; a chunked one at the limit).
 */

const order = { order_id: 'OD0000000000000001', amount: 10.5, currency: 'INR', status: 'payment_pending' as const };
const LIMIT = 2048;
const handlers = {
  createOrder: async () => ({
    status: 201,
    body: { success: true, message: 'created', data: order },
    headers: { Location: '/pg/orders/x' },
  }),
  getOrder: async () => ({ status: 200, body: { success: true, message: 'ok', data: order } }),
  uploadOrderDocument: async () => ({ status: 200, body: { success: true, message: 'attached', data: order } }),
  listRefunds: async () => ({ status: 200, body: { count: 0, page: 1, page_size: 250, next: null, previous: null, results: [] } }),
  listMerchants: async () => ({
    status: 200,
    body: { success: true, message: 'ok', data: { count: 0, page: 1, page_size: 250, next: null, previous: null, results: [] } },
  }),
  getHealth: async () => ({ status: 204 as const }),
} as unknown as Handlers<{ clientId: string }>; // the answers do not matter here, only when they are sent

let server: Server;
let port: number;

beforeAll(async () => {
  const app = createApiApp<Handlers<{ clientId: string }>, { clientId: string }>(
    { apiDocument, operations, securitySchemes, requestValidators },
    {
      handlers,
      validateResponses: false,
      bodyLimit: `${LIMIT}b`,
      authenticate: ({ req }) => {
        if (req.headers['x-client-secret'] !== 'cs_1') throw new Error('bad credentials');
        return { clientId: 'ck_test_1' };
      },
    },
  );
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

interface Exchange {
  status: number;
  head: string;
  /** Body bytes this client had written when the answer arrived. */
  sentBeforeAnswer: number;
  /** Whether the server closed the connection (within 2 s of the answer). */
  closed: boolean;
}

/**
 * Send `head`, then `chunk` every `everyMs` (forever, until the answer): a client that is slow with its body. Resolves
 * with the answer and whether the server closes the socket afterwards.
 */
function slowBody(head: string, chunk: string, everyMs = 5, endAfterBytes = Number.POSITIVE_INFINITY, end = ''): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, '127.0.0.1');
    let sent = 0;
    let answer = '';
    let sentBeforeAnswer = -1;
    let timer: NodeJS.Timeout | undefined;
    const finish = (closed: boolean) => {
      clearInterval(timer);
      socket.destroy();
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? 0);
      resolve({ status, head: answer.split('\r\n\r\n')[0] ?? '', sentBeforeAnswer, closed });
    };
    socket.on('error', () => undefined); // a reset after the answer is the point of the test
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => {
        if (sentBeforeAnswer >= 0 || socket.destroyed || !socket.writable || sent >= endAfterBytes) return;
        socket.write(chunk);
        sent += Buffer.byteLength(chunk);
        if (sent >= endAfterBytes) socket.write(end); // the body is complete: an answer is due now at the latest
      }, everyMs);
    });
    socket.on('data', (d: Buffer) => {
      answer += d.toString();
      if (sentBeforeAnswer < 0) {
        sentBeforeAnswer = sent;
        setTimeout(() => finish(false), 2_000).unref();
      }
    });
    socket.on('close', () => (sentBeforeAnswer >= 0 ? finish(true) : reject(new Error(`closed without an answer: ${answer}`))));
  });
}

const post = (headers: Record<string, string>) =>
  `POST /pg/orders/ HTTP/1.1\r\nHost: x\r\n${Object.entries({ 'x-client-id': 'ck_test_1', 'x-merchant-id': '12345678', ...headers })
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n`;

describe('early answers on a body still arriving close the connection (D96)', () => {
  it.each([
    ['401 (wrong credential)', { 'x-client-secret': 'wrong', 'content-type': 'application/json', 'content-length': '1000' }, 401],
    [
      '413 (Content-Length over the limit: refused before reading)',
      { 'x-client-secret': 'cs_1', 'content-type': 'application/json', 'content-length': String(50 * 1024 * 1024) },
      413,
    ],
    [
      '415 (a media type the operation does not take)',
      { 'x-client-secret': 'cs_1', 'content-type': 'application/xml', 'content-length': '1000' },
      415,
    ],
    [
      '413 (multipart Content-Length over every upload limit together)',
      { 'x-client-secret': 'cs_1', 'content-type': 'multipart/form-data; boundary=x', 'content-length': String(50 * 1024 * 1024) },
      413,
    ],
  ])('%s: Connection: close, then the socket is closed', async (_name, headers, status) => {
    const res = await slowBody(post(headers), '{', 20);
    expect(res.status).toBe(status);
    expect(res.head.toLowerCase()).toContain('connection: close');
    expect(res.closed).toBe(true);
  });

  it('a chunked body is refused once it passes the limit, without reading the rest', async () => {
    const res = await slowBody(
      post({ 'x-client-secret': 'cs_1', 'content-type': 'application/json', 'transfer-encoding': 'chunked' }),
      `100\r\n${' '.repeat(256)}\r\n`,
      2,
    );
    expect(res.status).toBe(413);
    expect(res.head.toLowerCase()).toContain('connection: close');
    expect(res.closed).toBe(true);
    // the answer came at the limit (plus what was in flight), not at the end of a body that never ends
    expect(res.sentBeforeAnswer).toBeGreaterThan(LIMIT);
    expect(res.sentBeforeAnswer).toBeLessThan(LIMIT * 4);
  });

  it('a chunked multipart upload is refused once it passes the multipart limit, not read to its end (D362)', async () => {
    // the default upload limits: one file of 5 MiB and 20 fields of 64 KiB, plus 64 KiB of part headers
    const multipartLimit = 5 * 1024 * 1024 + 20 * 64 * 1024 + 64 * 1024;
    const frame = (data: string) => `${Buffer.byteLength(data).toString(16)}\r\n${data}\r\n`;
    const head =
      'POST /pg/orders/OD0000000000000001/documents/ HTTP/1.1\r\nHost: x\r\nx-client-id: ck_test_1\r\nx-client-secret: cs_1\r\n' +
      'content-type: multipart/form-data; boundary=x\r\ntransfer-encoding: chunked\r\n\r\n' +
      frame('--x\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-');
    // a 50 MB file, then the end of the form: before D362 the 413 came only after all of it had been read
    const fifty = 50 * 1024 * 1024;
    const res = await slowBody(head, frame('a'.repeat(64 * 1024)), 1, fifty, `${frame('\r\n--x--\r\n')}0\r\n\r\n`);
    expect(res.status).toBe(413);
    expect(res.head.toLowerCase()).toContain('connection: close');
    expect(res.closed).toBe(true);
    expect(res.sentBeforeAnswer).toBeGreaterThan(multipartLimit);
    expect(res.sentBeforeAnswer).toBeLessThan(multipartLimit * 2);
  });

  it.each([
    ['answered', 'cs_1', 201],
    ['refused', 'wrong', 401],
  ])('a body that has arrived (sent with the headers) keeps the connection alive, %s', async (_name, secret, status) => {
    const body = JSON.stringify({ amount: '10.50', currency: 'INR', reference_id: 'r', buyer: { name: 'A', email: 'a@example.com' } });
    const head = post({ 'x-client-secret': secret, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write(head + body)); // one write: it arrives with the headers
      let text = '';
      socket.on('error', reject);
      socket.on('data', (d: Buffer) => {
        text += d.toString();
        if (text.includes('\r\n\r\n')) {
          socket.destroy();
          resolve(text);
        }
      });
    });
    expect(Number(answer.slice(9, 12))).toBe(status);
    expect(answer.toLowerCase()).toContain('connection: keep-alive');
  });

  it.each([
    ['1mb', 1024 * 1024],
    ['2kb', 2048],
    [4096, 4096],
  ])('limitInBytes(%j) = %d', (limit, expected) => {
    expect(limitInBytes(limit)).toBe(expected);
  });
});
