/**
 * A real HTTP webhook receiver for tests (127.0.0.1:0). Records every delivery (raw body + headers); answers 200, or
 * the status `respondWith` returns (to exercise retries).
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Delivery {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
  receivedAt: number;
}

export interface WebhookReceiver {
  url: string;
  deliveries: Delivery[];
  respondWith: (d: Delivery) => number;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const deliveries: Delivery[] = [];
  const receiver: WebhookReceiver = {
    url: '',
    deliveries,
    respondWith: () => 200,
    close: async () => undefined,
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const d: Delivery = {
        path: req.url ?? '/',
        headers: req.headers,
        raw: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now(),
      };
      deliveries.push(d);
      res.statusCode = receiver.respondWith(d);
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks/paygate`;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}
