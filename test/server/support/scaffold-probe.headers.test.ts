/**
 * The probe's headers (scaffold-probe.ts): a declared `Content-Length` (and the other headers of the connection and
 * the message's framing) is left to fetch (D414, "The corpus probe's own HTTP failures are not the scaffold's"); a request
 * undici will not send is told apart from one the scaffold failed to answer.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JsonObject } from '../../../packages/contract-tests/src/spec-check/samples.js';
import { FETCH_OWN_HEADERS, fetchFailure, SpecProbe, unsentReason } from './scaffold-probe.js';

const header = (name: string, schema: Record<string, unknown>) => ({ name, in: 'header', required: true, schema });

// VTEX's Marketplace Protocol (`Content-Length`, example 2183) and HERE's tracking (`type: number`, sampled 0)
const document = {
  openapi: '3.0.3',
  info: { title: 'Framing', version: '1' },
  paths: {
    '/orders': {
      post: {
        operationId: 'placeOrder',
        parameters: [
          header('Content-Length', { type: 'string', example: '2183' }),
          header('Host', { type: 'string', example: 'seller.example' }),
          header('Connection', { type: 'string', example: 'keep-alive' }),
          header('Transfer-Encoding', { type: 'string', example: 'chunked' }),
          header('Expect', { type: 'string', example: '100-continue' }),
          header('Keep-Alive', { type: 'string', example: 'timeout=5' }),
          header('Upgrade', { type: 'string', example: 'h2c' }),
          header('TE', { type: 'string', example: 'trailers' }),
          header('Trailer', { type: 'string', example: 'Expires' }),
          header('X-Trace', { type: 'string', example: 't1' }),
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string', example: 'o-1' } } } } },
        },
        responses: { '200': { description: 'ok' } },
      },
    },
    '/shadows/{id}': {
      put: {
        operationId: 'putShadow',
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          header('content-length', { type: 'number', minimum: 0, maximum: 1000 }),
        ],
        requestBody: { content: { 'application/json': { schema: { type: 'object' } } } },
        responses: { '200': { description: 'ok' } },
      },
    },
  },
} as unknown as JsonObject;

describe('SpecProbe: headers fetch writes itself', () => {
  const probe = new SpecProbe(document);
  let server: Server;
  let baseUrl = '';
  /** What the server read of each request: its Content-Length and the bytes of its body. */
  const seen: { contentLength: string | undefined; bytes: number }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let bytes = 0;
      req.on('data', (chunk: Buffer) => void (bytes += chunk.length));
      req.on('end', () => {
        seen.push({ contentLength: req.headers['content-length'], bytes });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it.each(['valid', 'invalid', 'unauthenticated'] as const)('%s: no declared framing header is copied into the request', (kind) => {
    const request = probe.request(probe.operations[0]!, kind, baseUrl, {}, {});
    if (request === undefined) return; // unauthenticated: the operation is public
    const names = Object.keys(request.headers).map((name) => name.toLowerCase());
    expect(names.filter((name) => FETCH_OWN_HEADERS.has(name))).toEqual([]);
    expect(request.headers['X-Trace']).toBe('t1');
  });

  it.each([
    ['placeOrder', 'valid'],
    ['placeOrder', 'invalid'],
    ['putShadow', 'valid'],
  ] as const)('%s, %s: sent, with the Content-Length of its own body', async (operationId, kind) => {
    const operation = probe.operations.find((o) => o.operationId === operationId)!;
    const request = probe.request(operation, kind, baseUrl, {}, {})!;
    seen.length = 0;
    const answer = await probe.send(request);
    expect(answer.status).toBe(200);
    expect(seen).toEqual([{ contentLength: String(Buffer.byteLength(request.body!)), bytes: Buffer.byteLength(request.body!) }]);
  });

  it("a request undici will not send is the probe's, named with its code; a closed connection is not", async () => {
    const mismatch = await fetch(`${baseUrl}/orders`, { method: 'POST', headers: { 'content-length': '2183' }, body: '{}' }).catch(
      (error: unknown) => error,
    );
    expect(fetchFailure(mismatch)).toMatch(/^fetch failed \(UND_ERR_REQ_CONTENT_LENGTH_MISMATCH: /);
    expect(unsentReason(mismatch)).toBe('a request fetch would not send (UND_ERR_REQ_CONTENT_LENGTH_MISMATCH)');
    const refused = await fetch(`${baseUrl}/orders`, { method: 'POST', headers: { upgrade: 'h2c' }, body: '{}' }).catch(
      (error: unknown) => error,
    );
    expect(unsentReason(refused)).toBe('a request fetch would not send (UND_ERR_INVALID_ARG)');
    const trace = await fetch(`${baseUrl}/orders`, { method: 'TRACE' }).catch((error: unknown) => error);
    expect(unsentReason(trace)).toBe('a method fetch will not send (TRACE)');

    // a server that closes the connection without answering: the scaffold's failure, with its cause recorded
    const closing = createServer((req) => req.socket.destroy());
    await new Promise<void>((resolve) => closing.listen(0, '127.0.0.1', resolve));
    const closed = await fetch(`http://127.0.0.1:${(closing.address() as AddressInfo).port}/`).catch((error: unknown) => error);
    await new Promise((resolve) => closing.close(resolve));
    expect(unsentReason(closed)).toBeUndefined();
    expect(fetchFailure(closed)).toMatch(/^fetch failed \(\S+: .+\)$/);
  });
});
