import { createServer, type Server } from 'node:http';
import type { RequestListener } from 'node:http';
import type { ReferenceConfig } from '../core/config.js';
import { limitConnectionsPerAddress } from '../http/connection-limits.js';
import type { createLogger } from '../http/logger.js';

/**
 * The gateway's HTTP server around `app`. Slow or idle clients cannot hold it: the request headers within
 * headersTimeout, the whole request within requestTimeout, idle keep-alive sockets closed after keepAliveTimeout, at
 * most maxConnections sockets, and one address cannot hold them all (D96: connections per address); a malformed
 * request is answered, not dropped.
 */
export async function createGatewayHttpServer(
  app: RequestListener & { get(setting: 'trust proxy fn'): unknown },
  config: ReferenceConfig,
  logger: ReturnType<typeof createLogger>,
): Promise<Server> {
  const http = createServer(
    {
      headersTimeout: config.http.headersTimeoutMs,
      requestTimeout: config.http.requestTimeoutMs,
      keepAliveTimeout: config.http.keepAliveTimeoutMs,
      // how often Node looks for requests past those timeouts (its default, 30 s, would let a slow client stay 30 s more)
      connectionsCheckingInterval: Math.max(250, Math.min(1000, Math.floor(config.http.headersTimeoutMs / 2))),
    },
    app,
  );
  http.maxConnections = config.http.maxConnections;
  // Start-up order (D173 database opened while modules load): loaded with the app's graph (@paygate/server), not before the database starts opening
  const { answerMalformedRequests } = await import('../http/client-error.js');
  answerMalformedRequests(http);
  // the proxies PAYGATE_TRUST_PROXY trusts carry every client's traffic: they are exempt from the per-address cap
  const trusted = app.get('trust proxy fn') as (address: string, hop: number) => boolean;
  limitConnectionsPerAddress(http, { max: config.http.maxConnectionsPerAddress, exempt: (address) => trusted(address, 0), logger });
  return http;
}

/**
 * Listens with an accept queue that holds a burst the size of the connection cap (Node's default is 511; the kernel
 * caps it at net.core.somaxconn): a burst of connections from one address must not overflow it and drop other
 * clients' SYNs before the per-address cap can refuse them (D96 early answers close the connection, bodies counted). A port in use or not allowed is an error saying
 * what to do.
 */
export async function listenOn(http: Server, port: number, host: string, maxConnections: number): Promise<void> {
  try {
    await listen(http, port, host, Math.max(511, 2 * maxConnections));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new Error(`Port ${port} is already in use: set PORT to a free port (e.g. PORT=${port + 1} paygate serve).`);
    if (code === 'EACCES') throw new Error(`Not allowed to listen on port ${port}: set PORT to a port above 1023.`);
    throw err;
  }
}

function listen(server: Server, port: number, host: string, backlog: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException) => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = () => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen({ port, host, backlog });
  });
}

/** The server's port and address as `PORT` names them (default 8080). */
export function parsePort(raw: string | undefined): number {
  const value = raw === undefined || raw === '' ? '8080' : raw;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`PORT must be a port number 0..65535, got ${JSON.stringify(value)}`);
  return port;
}
