/**
 * The server the corpus probe sends to (bench/corpus/probe-server.ts): an idle connection outlasting Node's default
 * keep-alive timeout (5 s; Node closes the connection about a second after it) still takes the next request written on it (D414, "The corpus probe's own HTTP failures are
 * not the scaffold's"). Under Node's default, the server closed such connections when the shared event loop had been
 * blocked past the timeout, requests unread, and fetch failed with ECONNRESET.
 */
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { listenForProbe } from '../../bench/corpus/probe-server.js';

const servers: Server[] = [];
afterAll(() => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
});

/** Two requests on one connection, the second written after it has been idle `idleMs`: the statuses answered. */
async function twoRequests(server: Server, idleMs: number): Promise<string[]> {
  const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  let text = '';
  socket.on('data', (chunk: Buffer) => void (text += chunk.toString()));
  const closed = new Promise((resolve) => {
    socket.once('close', resolve);
    socket.once('error', resolve);
  });
  socket.write('GET / HTTP/1.1\r\nHost: probe\r\n\r\n');
  await new Promise((resolve) => setTimeout(resolve, idleMs));
  if (!socket.destroyed) socket.write('POST / HTTP/1.1\r\nHost: probe\r\nContent-Length: 2\r\n\r\n{}');
  setTimeout(() => socket.end(), 300);
  await closed;
  return text.match(/HTTP\/1\.1 \d+/g) ?? [];
}

const answer = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.end('ok'));
});

describe('listenForProbe', () => {
  it('keeps a connection idle for 6.5 s open: the next request written on it is answered', async () => {
    const server = await listenForProbe({ listen: (port, host) => answer.listen(port, host) });
    servers.push(server);
    expect(server.keepAliveTimeout).toBe(0);
    expect(await twoRequests(server, 6_500)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 200']);
  }, 15_000);

  it('rejects when it cannot listen', async () => {
    const broken = createServer();
    await expect(listenForProbe({ listen: () => broken.listen(-1, '127.0.0.1') })).rejects.toThrow();
  });
});
