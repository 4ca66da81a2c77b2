/**
 * `paygate listen --input SPEC` ("listen and trigger for another API", D214): the events of any API, not Paygate's gateway. The relay listens on this
 * machine where the API (or a tunnel to it) posts its webhooks and callbacks, validates each delivery against the
 * spec's events (found by the spec's discriminator, or named by the relay path `/<event name>` for events known by
 * name: a callback URL you give the API), prints what arrived and what was wrong with it, and forwards the request
 * unchanged (body and headers, so a signature stays valid) to your receiver, answering the sender with its status.
 * Nothing is registered anywhere: the API's own way of subscribing decides what is sent.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createEventCatalog, type EventCatalog } from '@paygate/webhooks/runtime/event-validation.js';
import type { ApiModel } from '../../model/types.js';

/** The receiver must answer within this; senders commonly give up after 10 s or more. */
export const RELAY_FORWARD_TIMEOUT_MS = 9_000;
/** Deliveries larger than this are refused (413): no API sends megabytes of event. */
const MAX_BODY_BYTES = 1024 * 1024;
/** Request headers not forwarded: they describe this hop, not the delivery. */
const HOP_HEADERS = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade', 'expect']);

export interface SpecEvents {
  model: ApiModel;
  catalog: EventCatalog<Record<string, unknown>>;
}

/**
 * Parses the spec (no lint, nothing written) and compiles its events' validators in memory. The generators are loaded
 * here, not when the module is: `paygate listen` and `paygate trigger` without `--input` (Paygate's own gateway) never
 * need them, and loading them was most of those commands' start-up (about 1 CPU-s; docs/benchmarks.md, "npm test:
 * wall time and CPU").
 */
export async function loadSpecEvents(input: string, asyncapi: string | null, cwd: string): Promise<SpecEvents> {
  const [{ generate }, { eventValidatorsInMemory }] = await Promise.all([import('../../pipeline.js'), import('../../emit/webhooks.js')]);
  const { model } = await generate({ rootDir: cwd, openapi: input, asyncapi, lint: 'skip', targets: [] });
  const union = model.webhooks.filter((e) => e.discriminatorValue !== undefined).map((e) => e.eventType);
  return { model, catalog: createEventCatalog(eventValidatorsInMemory(model), model.webhookDiscriminator ?? null, union) };
}

export interface SpecRelayOptions extends SpecEvents {
  forwardTo: string;
  host: string;
  port: number;
  /** One line per delivery and per answer. */
  log: (line: string) => void;
}

export interface SpecRelay {
  url: string;
  stop(): Promise<void>;
}

/** The body as the validators see it: JSON, a form's fields, else the text. */
function parse(body: string, contentType: string): unknown {
  if (/json/i.test(contentType)) return JSON.parse(body);
  if (/x-www-form-urlencoded/i.test(contentType)) return Object.fromEntries(new URLSearchParams(body));
  return body;
}

async function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** What the relay says about one delivery: its event (or `?`), whether it conforms, and the errors as `/pointer: message`. */
export function checkDelivery(
  catalog: SpecEvents['catalog'],
  path: string,
  body: string,
  contentType: string,
): { event: string; ok: boolean; detail: string } {
  const named = decodeURIComponent(path.replace(/^\/+|\/+$/g, ''));
  let input: unknown;
  try {
    input = parse(body, contentType);
  } catch {
    return { event: named || '?', ok: false, detail: `the body is not ${contentType || 'JSON'}` };
  }
  if (named !== '' && !catalog.names.includes(named)) {
    return { event: named, ok: false, detail: `no event of this API has that name (${catalog.names.join(', ')})` };
  }
  const found = named === '' ? catalog.validate(input) : undefined;
  const result = found ?? catalog.validateAs(named, input);
  const event = found === undefined ? named : (found.name ?? '?');
  if (result.ok) return { event, ok: true, detail: 'valid' };
  const errors = result.errors.slice(0, 5).map((e) => `${e.path || '/'}: ${e.message}`);
  return { event, ok: false, detail: `INVALID: ${errors.join('; ')}` };
}

export async function startSpecRelay(options: SpecRelayOptions): Promise<SpecRelay> {
  const { log, forwardTo } = options;
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    if (raw === undefined) {
      log(`!!  refused a delivery over ${MAX_BODY_BYTES} bytes`);
      res.writeHead(413).end();
      return;
    }
    const path = new URL(req.url ?? '/', 'http://relay.invalid').pathname;
    const contentType = String(req.headers['content-type'] ?? '');
    const verdict = checkDelivery(options.catalog, path, raw.toString('utf8'), contentType);
    log(`${verdict.ok ? '-->' : '!! '} ${verdict.event} ${req.method ?? 'POST'} ${path} ${verdict.detail}`);
    const headers: Record<string, string> = {};
    for (const [key, value] of Object.entries(req.headers)) {
      if (value !== undefined && !HOP_HEADERS.has(key)) headers[key] = Array.isArray(value) ? value.join(', ') : value;
    }
    const started = performance.now();
    try {
      const answer = await fetch(forwardTo, {
        method: req.method ?? 'POST',
        headers,
        body: new Uint8Array(raw),
        redirect: 'manual',
        signal: AbortSignal.timeout(RELAY_FORWARD_TIMEOUT_MS),
      });
      const text = (await answer.text()).slice(0, 200).replace(/\s+/g, ' ');
      log(
        `<-- [${answer.status}] ${path} ${req.method ?? 'POST'} ${forwardTo} (${Math.round(performance.now() - started)} ms)${text ? ` ${text}` : ''}`,
      );
      res.writeHead(answer.status).end(); // the sender sees your receiver's own answer (and retries what it refused)
    } catch (error) {
      log(`<-- [no answer] ${path} ${req.method ?? 'POST'} ${forwardTo}: ${(error as Error).message}. Is your receiver running?`);
      res.writeHead(502).end();
    }
  }
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.writeHead(500).end());
  });
  const address = await new Promise<AddressInfo>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve(server.address() as AddressInfo));
  });
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let stopped: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}/`,
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
      return stopped;
    },
  };
}
