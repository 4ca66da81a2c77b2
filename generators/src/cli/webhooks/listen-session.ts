/**
 * `paygate listen` without the command line: a local relay the gateway pushes to, a temporary webhook endpoint
 * registered for it, and the forwarding of each delivery to the developer's receiver (D80 paygate listen forwards webhooks locally).
 *
 * The gateway delivers to the relay like to any endpoint (Standard Webhooks headers, its retries, its deliveries
 * API); the relay checks the signature, posts the same body and the same `webhook-*` headers to `--forward-to` (so
 * the signature stays valid under the printed `whsec_` secret) and answers the gateway with the receiver's status,
 * which the deliveries API then shows. Stopping deletes the endpoint.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventType } from '@paygate/contract';
import { Webhook } from '@paygate/webhooks';
import { EnvironmentError } from '../command.js';
import { GatewayCallError, must, partnerClient, type GatewayAccess } from './gateway-access.js';

/** The receiver must answer within this (the gateway gives the relay 10 s per attempt). */
export const FORWARD_TIMEOUT_MS = 9_000;

export interface ListenOptions {
  access: GatewayAccess;
  forwardTo: string;
  events: readonly EventType[];
  /** Where the relay listens (default 127.0.0.1, any free port). */
  relayHost?: string;
  relayPort?: number;
  /** The URL the gateway posts to, when it is not http://<relayHost>:<port>/ (a gateway in a container, say). */
  relayUrl?: string;
  /** One line per delivery and per answer. */
  log: (line: string) => void;
}

export interface ListenSession {
  endpointId: string;
  /** The endpoint's signing secret: what the receiver verifies with. */
  secret: string;
  relayUrl: string;
  /** Delete the endpoint and close the relay (idempotent). */
  stop(): Promise<void>;
}

interface Forwarded {
  status: number;
  body: string;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function header(req: IncomingMessage, name: string): string {
  const v = req.headers[name];
  return Array.isArray(v) ? (v[0] ?? '') : (v ?? '');
}

async function forward(url: string, req: IncomingMessage, body: string): Promise<Forwarded> {
  const res = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'user-agent': 'paygate-listen',
      'webhook-id': header(req, 'webhook-id'),
      'webhook-timestamp': header(req, 'webhook-timestamp'),
      'webhook-signature': header(req, 'webhook-signature'),
    },
    body,
    redirect: 'manual',
    signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
  });
  return { status: res.status, body: (await res.text()).slice(0, 200) };
}

function listenOn(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server.address() as AddressInfo));
  });
}

export async function startListenSession(options: ListenOptions): Promise<ListenSession> {
  const { access, log } = options;
  let verifier: Webhook | undefined;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req);
    let event: { event_type?: string; sequence_number?: string };
    try {
      if (!verifier) throw new Error('not registered yet');
      event = verifier.verify<{ event_type?: string; sequence_number?: string }>(body, req.headers as Record<string, string>);
    } catch (error) {
      log(`!!  refused a request to the relay that is not a delivery of this endpoint (${(error as Error).message})`);
      res.writeHead(400).end();
      return;
    }
    const label = `${event.event_type ?? '?'} ${header(req, 'webhook-id')}`; // deliveries run concurrently: name each answer
    log(`--> ${label}`);
    const started = performance.now();
    try {
      const answer = await forward(options.forwardTo, req, body);
      log(
        `<-- [${answer.status}] ${label} POST ${options.forwardTo} (${Math.round(performance.now() - started)} ms)${answer.body ? ` ${answer.body.replace(/\s+/g, ' ')}` : ''}`,
      );
      res.writeHead(answer.status).end(); // the gateway records the receiver's own answer (deliveries API)
    } catch (error) {
      log(
        `<-- [no answer] ${label} POST ${options.forwardTo}: ${(error as Error).message}. Is your receiver running? The gateway retries on its schedule.`,
      );
      res.writeHead(502).end();
    }
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => res.writeHead(500).end());
  });
  const address = await listenOn(server, options.relayHost ?? '127.0.0.1', options.relayPort ?? 0);
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const relayUrl = options.relayUrl ?? `http://${host}:${address.port}/paygate-listen`;
  const closeServer = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });

  const client = partnerClient(access);
  let created;
  try {
    created = await must(
      'createWebhookEndpoint',
      access,
      client.webhooks.createEndpoint({
        url: relayUrl,
        events: [...options.events],
        description: `paygate listen -> ${options.forwardTo}`.slice(0, 200),
      }),
    );
  } catch (error) {
    await closeServer();
    if (error instanceof GatewayCallError && /url/.test(error.message)) {
      throw new EnvironmentError(
        `${error.message} The gateway refused the relay URL ${relayUrl}: it must be allowed to deliver to this machine (a sandbox gateway with PAYGATE_WEBHOOK_PRIVATE_DESTINATIONS=allow, the default), or pass --relay-url with an address it can reach.`,
      );
    }
    throw error;
  }
  const endpoint = created.data;
  verifier = new Webhook(endpoint.secret);
  let stopped: Promise<void> | undefined;
  return {
    endpointId: endpoint.id,
    secret: endpoint.secret,
    relayUrl,
    stop() {
      stopped ??= (async () => {
        try {
          await must('deleteWebhookEndpoint', access, client.webhooks.deleteEndpoint(endpoint.id));
        } finally {
          await closeServer();
        }
      })();
      return stopped;
    },
  };
}
