import type { Server } from 'node:http';

/**
 * The graceful stop of a listening gateway (D100: drain on SIGTERM): `markDraining` first (readiness answers 503 so a
 * load balancer stops sending), then no new connections; a request that still arrives on a kept-alive connection is
 * answered with `Connection: close`, and a connection is closed as soon as it is idle, so clients reconnect to a
 * process that is not stopping instead of holding this one open; connections still open after `drainMs` are closed;
 * then `closeRest` (the worker and the database). Calling the returned function again returns the same stop.
 */
export function gracefulStop(
  http: Server,
  drainMs: number,
  steps: { markDraining: () => void; closeRest: () => Promise<void> },
): () => Promise<void> {
  let stopping: Promise<void> | undefined;
  return (): Promise<void> => {
    stopping ??= (async () => {
      steps.markDraining();
      http.prependListener('request', (_req, res) => {
        res.shouldKeepAlive = false;
      });
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeIdleConnections();
      const sweep = setInterval(() => http.closeIdleConnections(), 100);
      const force = setTimeout(() => http.closeAllConnections(), drainMs);
      force.unref();
      await closed;
      clearInterval(sweep);
      clearTimeout(force);
      await steps.closeRest();
    })();
    return stopping;
  };
}
