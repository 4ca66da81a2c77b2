/**
 * A webhook receiver on 127.0.0.1 for fault tests: verifies every delivery with `Webhook` from @paygate/webhooks,
 * records it, and answers as the test's `behaviour` says (status and delay), so it can be slow, failing, or (closed)
 * down. It can be started on a port reserved earlier, so a receiver can be "down" and then come up at the same URL.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from '@paygate/webhooks';

export interface Delivery {
  /** webhook-id header (msg_ + the event's sequence_number; stable across retries). */
  webhookId: string;
  /** 1-based count of requests this receiver has seen for this webhook-id, this one included. */
  seen: number;
  receivedAt: number;
  /** Whether the Standard Webhooks signature verified with the endpoint secret. */
  verified: boolean;
  /** Parsed JSON body (when verified). */
  payload: unknown;
  /** The HTTP status this receiver answered with (null if it never answered, e.g. the sender timed out first). */
  answered: number | null;
}

export interface Behaviour {
  status: number;
  /** Delay before answering, ms. */
  delayMs?: number;
}

export interface Receiver {
  url: string;
  port: number;
  deliveries: Delivery[];
  /** Set (or change) the endpoint secret used for verification. Deliveries before it is set count as unverified. */
  setSecret(secret: string): void;
  /** Deliveries with 2xx answers, one entry per distinct webhook-id (first success). */
  acceptedIds(): Set<string>;
  /** Number of 2xx answers per webhook-id. */
  acceptedCounts(): Map<string, number>;
  close(): Promise<void>;
}

/** Reserve a free loopback port (listen on 0, read it, close). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startReceiver(
  options: { port?: number; secret?: string; behaviour?: (d: Delivery) => Behaviour } = {},
): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let wh: Webhook | undefined = options.secret ? new Webhook(options.secret) : undefined;
  const behaviour: (d: Delivery) => Behaviour = options.behaviour ?? (() => ({ status: 204 }));

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await readBody(req);
    const webhookId = String(req.headers['webhook-id'] ?? '');
    let verified = false;
    let payload: unknown = null;
    if (wh) {
      try {
        payload = wh.verify(body, req.headers);
        verified = true;
      } catch {
        verified = false;
      }
    }
    const seen = deliveries.filter((d) => d.webhookId === webhookId).length + 1;
    const delivery: Delivery = { webhookId, seen, receivedAt: Date.now(), verified, payload, answered: null };
    deliveries.push(delivery);
    const { status, delayMs = 0 } = behaviour(delivery);
    const answer = (): void => {
      if (res.destroyed || res.writableEnded) return;
      delivery.answered = status;
      res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'not now');
    };
    if (delayMs > 0) {
      const t = setTimeout(() => {
        timers.delete(t);
        answer();
      }, delayMs);
      timers.add(t);
    } else {
      answer();
    }
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  const accepted = (): Delivery[] => deliveries.filter((d) => d.answered !== null && d.answered >= 200 && d.answered < 300);
  return {
    url: `http://127.0.0.1:${port}/webhooks`,
    port,
    deliveries,
    setSecret(secret) {
      wh = new Webhook(secret);
    },
    acceptedIds: () => new Set(accepted().map((d) => d.webhookId)),
    acceptedCounts() {
      const counts = new Map<string, number>();
      for (const d of accepted()) counts.set(d.webhookId, (counts.get(d.webhookId) ?? 0) + 1);
      return counts;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        timers.clear();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
