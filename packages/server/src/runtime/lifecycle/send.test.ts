import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationRoute } from '../types.js';
import { sendRendered, sendResult } from './send.js';
import { RenderedResponse } from './serialize.js';

const operation = { operationId: 'getThing', responses: { '200': ['application/json'], '204': [] } } as unknown as OperationRoute;

describe('send step', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    const app = express();
    app.set('etag', false);
    app.get('/json', (req: Request, res: Response) => sendResult(undefined, operation, req, res, { status: 200, body: { é: 1 } }, false));
    app.get('/text', (req, res) =>
      sendResult(undefined, operation, req, res, { status: 200, body: 'héllo', contentType: 'text/plain', headers: { 'X-A': 1 } }, false),
    );
    app.get('/empty', (req, res) => sendResult(undefined, operation, req, res, { status: 204, headers: { 'X-B': 'b' } }, false));
    app.get('/rendered', (req, res) =>
      sendRendered(
        req,
        res,
        new RenderedResponse(201, 'application/json', { 'Idempotent-Replayed': 'true' }, new TextEncoder().encode('{"stored":true}')),
      ),
    );
    server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => void server.close());

  it('JSON: the declared media type, its byte length', async () => {
    const res = await fetch(`${url}/json`);
    expect([res.status, res.headers.get('content-type'), res.headers.get('content-length'), await res.text()]).toEqual([
      200,
      'application/json; charset=utf-8',
      String(Buffer.byteLength('{"é":1}')),
      '{"é":1}',
    ]);
  });

  it("text under its own media type with charset=utf-8, and the result's headers", async () => {
    const res = await fetch(`${url}/text`);
    expect([res.headers.get('content-type'), res.headers.get('x-a'), await res.text()]).toEqual([
      'text/plain; charset=utf-8',
      '1',
      'héllo',
    ]);
  });

  it('no body: the status and headers only', async () => {
    const res = await fetch(`${url}/empty`);
    expect([res.status, res.headers.get('x-b'), res.headers.get('content-type'), await res.text()]).toEqual([204, 'b', null, '']);
  });

  it("a rendered response (a hook's replay) is sent byte for byte", async () => {
    const res = await fetch(`${url}/rendered`);
    expect([res.status, res.headers.get('idempotent-replayed'), res.headers.get('content-type'), await res.text()]).toEqual([
      201,
      'true',
      'application/json',
      '{"stored":true}',
    ]);
  });

  it("HEAD goes through Express's res.send: headers, no body", async () => {
    const res = await fetch(`${url}/json`, { method: 'HEAD' });
    expect([res.status, res.headers.get('content-length'), await res.text()]).toEqual([200, String(Buffer.byteLength('{"é":1}')), '']);
  });
});
