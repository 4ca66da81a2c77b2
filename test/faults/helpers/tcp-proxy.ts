/**
 * A TCP proxy for the fault tests (node:net): forwards every connection to a target (PostgreSQL on 127.0.0.1:5432)
 * and can be switched down, which cuts every connection it carries and refuses new ones (accepted and reset at
 * once, so the port stays ours while it is down), then up again.
 */
import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface TcpProxy {
  readonly port: number;
  /** Connections accepted and refused while down (a client tried and was turned away). */
  readonly refused: number;
  /** Cut every open connection (both sides) and refuse new ones. */
  down(): void;
  /** Forward new connections again. */
  up(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const open = new Set<Socket>();
  let isDown = false;
  let refused = 0;
  const server: Server = createServer((client) => {
    if (isDown) {
      refused++;
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(target.port, target.host);
    open.add(client);
    open.add(upstream);
    const drop = () => {
      open.delete(client);
      open.delete(upstream);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    get refused() {
      return refused;
    },
    down() {
      isDown = true;
      // a reset, as when a network path or the server host goes away
      for (const socket of open) socket.resetAndDestroy();
      open.clear();
    },
    up() {
      isDown = false;
    },
    async close() {
      isDown = true;
      for (const socket of open) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
