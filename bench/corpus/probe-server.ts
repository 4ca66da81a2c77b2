/**
 * The HTTP server the corpus probe sends to: the scaffold's app listening on a free port of 127.0.0.1, with Node's
 * keep-alive timeout off (D414, "The corpus probe's own HTTP failures are not the scaffold's"). The probe and the
 * scaffold share one process and so one event loop, and the probe works synchronously between requests (sampling
 * AWS IoT TwinMaker's `CreateWorkspace` body took 1.3 s, three times in a row, and longer on a busy machine). When a
 * stretch of that outlasted the server's keep-alive timeout (5 s), Node's timers ran before it read the requests fetch
 * had already written on idle connections: it closed those connections with the requests unread and fetch failed with
 * ECONNRESET. With the timeout off the server never closes an idle connection; fetch closes its own after its idle
 * timeout, and never sends on a connection it closed.
 */
import type { Server } from 'node:http';

/** What is listened on (an Express app). */
export interface Listener {
  listen(port: number, hostname: string): Server;
}

/** `app` listening on a free port of 127.0.0.1, idle connections never closed by the server; rejects when it cannot listen. */
export async function listenForProbe(app: Listener): Promise<Server> {
  const server = app.listen(0, '127.0.0.1');
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve, reject) => {
    server.once('listening', () => resolve());
    server.once('error', reject);
  });
  return server;
}
