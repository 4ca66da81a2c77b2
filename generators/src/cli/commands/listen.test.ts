/**
 * `paygate listen` and `paygate trigger` end to end: a reference gateway served in this process (its worker polling),
 * a receiver on this machine with no public URL, `listen` forwarding to it and `trigger` making the gateway emit real
 * events, which the receiver verifies with @paygate/webhooks under the secret `listen` printed. With `--input SPEC`
 * (another API, D214) no gateway: the relay validates each delivery against the spec and forwards it; trigger says
 * what it cannot do.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPaygateClient } from '@paygate/client';
import { serve } from '@paygate/reference/cli';
import { Webhook } from '@paygate/webhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, UsageError, type CliIo } from '../command.js';
import { runListen } from './listen.js';
import { command as trigger } from './trigger.js';

const PARTNER = { id: 'pk_test_cli_listen', secret: 'ps_test_cli_listen_secret_0001' };

function captureIo(): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return { cwd: process.cwd(), stdout: (t) => void (out += t), stderr: (t) => void (err += t), out: () => out, err: () => err };
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Received {
  raw: string;
  headers: IncomingHttpHeaders;
}

let gateway: Awaited<ReturnType<typeof serve>>;
let baseUrl: string;
let receiver: Server;
let receiverUrl: string;
const received: Received[] = [];
const gatewayFlags = () => ['--base-url', baseUrl, '--client-id', PARTNER.id, '--client-secret', PARTNER.secret];

// the worker runs other files after this one (the unit project shares processes): LOG_LEVEL is put back after
const logLevelBefore = process.env['LOG_LEVEL'];

beforeAll(async () => {
  process.env['LOG_LEVEL'] = 'silent';
  gateway = await serve(
    {
      PORT: '0',
      PAYGATE_DATA_DIR: 'memory://cli-listen',
      PAYGATE_PARTNER_CLIENT_ID: PARTNER.id,
      PAYGATE_PARTNER_CLIENT_SECRET: PARTNER.secret,
      PAYGATE_RATE_LIMIT: '100000',
      PAYGATE_WORKER_INTERVAL_MS: '100',
    },
    () => undefined,
  );
  baseUrl = `http://127.0.0.1:${(gateway.server.address() as AddressInfo).port}`;
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ raw: Buffer.concat(chunks).toString('utf8'), headers: req.headers });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://localhost:${(receiver.address() as AddressInfo).port}/webhooks`;
});

afterAll(async () => {
  if (logLevelBefore === undefined) delete process.env['LOG_LEVEL'];
  else process.env['LOG_LEVEL'] = logLevelBefore;
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
  await gateway?.stop();
});

describe('paygate listen + paygate trigger', () => {
  it('forwards a triggered PAYMENT_CAPTURED to a local receiver, verifiable with the printed secret; Ctrl-C removes the endpoint', {
    timeout: 60_000,
  }, async () => {
    const io = captureIo();
    const stop = new AbortController();
    const listening = runListen(
      ['--forward-to', receiverUrl, '--events', 'PAYMENT_CAPTURED,REFUND_FAILED', ...gatewayFlags()],
      io,
      stop.signal,
    );
    const secret = await until('the secret', () => /(whsec_[A-Za-z0-9+/=]+)/.exec(io.out())?.[1]);
    const endpointId = await until('the endpoint id', () => /Endpoint (we_[A-Za-z0-9_-]{24})/.exec(io.err())?.[1]);

    const triggered = captureIo();
    expect(await trigger.run(['PAYMENT_CAPTURED', ...gatewayFlags()], triggered)).toBe(EXIT.ok);
    const orderId = /hosted order created: (OD\d{16})/.exec(triggered.out())?.[1];
    expect(orderId, triggered.out()).toBeDefined();

    const delivery = await until('the delivery', () => received.find((r) => r.raw.includes(orderId!)));
    const event = new Webhook(secret).verify<{ event_type: string; data: { order_id: string; status: string } }>(
      delivery.raw,
      delivery.headers as Record<string, string>,
    );
    expect(event).toMatchObject({ event_type: 'PAYMENT_CAPTURED', data: { order_id: orderId, status: 'CAPTURED' } });
    expect(received.map((r) => (JSON.parse(r.raw) as { event_type: string }).event_type)).toEqual(['PAYMENT_CAPTURED']); // MERCHANT_APPROVED not subscribed

    await until('the printed answer', () => (io.out().includes('<-- [204]') ? true : undefined));
    expect(io.out()).toContain(`--> PAYMENT_CAPTURED ${delivery.headers['webhook-id']}`);
    expect(io.out()).toContain(`<-- [204] PAYMENT_CAPTURED ${delivery.headers['webhook-id']} POST ${receiverUrl}`);
    // the gateway recorded the receiver's answer, relayed by listen
    const partner = createPaygateClient({ baseUrl, clientId: PARTNER.id, clientSecret: PARTNER.secret });
    const recorded = async () => {
      const listed = await partner.webhooks.listDeliveries(endpointId);
      return listed.ok ? listed.data.data.results.map((d) => [d.event_type, d.status, d.attempts.map((a) => a.status_code)]) : listed.error;
    };
    let attempts = await recorded();
    for (let i = 0; i < 50 && JSON.stringify(attempts).includes('delivering'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 100)); // the gateway records the answer just after the relay sends it
      attempts = await recorded();
    }
    expect(attempts).toEqual([['PAYMENT_CAPTURED', 'succeeded', [204]]]);

    stop.abort();
    expect(await listening).toBe(EXIT.ok);
    const endpoints = await partner.webhooks.listEndpoints();
    expect(endpoints.ok && endpoints.data.data.results.map((e) => e.id)).not.toContain(endpointId);
  });

  it('triggers REFUND_FAILED for real: the refund reads FAILED', { timeout: 60_000 }, async () => {
    const io = captureIo();
    expect(await trigger.run(['REFUND_FAILED', ...gatewayFlags()], io)).toBe(EXIT.ok);
    const refundId = /refund failed \(sandbox completion\): (RF\d{16})/.exec(io.out())?.[1];
    const merchantId = /merchant created: (\d+)/.exec(io.out())?.[1];
    const client = createPaygateClient({ baseUrl, clientId: PARTNER.id, clientSecret: PARTNER.secret, merchantId: merchantId! });
    const refund = await client.refunds.get(refundId!);
    expect(refund.ok && refund.data.data.refund_status).toBe('FAILED');
  });

  it.each([
    ['trigger without an event', () => trigger.run([...gatewayFlags()], captureIo()), /name the event/],
    [
      'trigger with an unknown event',
      () => trigger.run(['PAYMENT_REFUNDED', ...gatewayFlags()], captureIo()),
      /unknown event type "PAYMENT_REFUNDED"/,
    ],
    ['listen without --forward-to', () => runListen([...gatewayFlags()], captureIo(), AbortSignal.abort()), /--forward-to is required/],
    [
      'listen with an unknown event',
      () => runListen(['--forward-to', 'http://localhost:1/x', '--events', 'NOPE', ...gatewayFlags()], captureIo(), AbortSignal.abort()),
      /unknown: NOPE/,
    ],
    [
      'listen without a credential',
      () => runListen(['--forward-to', 'http://localhost:1/x', '--base-url', 'http://127.0.0.1:1'], captureIo(), AbortSignal.abort()),
      /partner credential is required/,
    ],
  ])('%s is a usage error (exit 2)', async (_name, run, message) => {
    const error = await run().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });
});

describe('with --input SPEC: another API (D214, "listen and trigger for another API")', () => {
  const relayed: { raw: string; headers: IncomingHttpHeaders; url: string }[] = [];
  let local: Server;
  let localUrl: string;

  beforeAll(async () => {
    local = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        relayed.push({ raw: Buffer.concat(chunks).toString('utf8'), headers: req.headers, url: req.url ?? '' });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => local.listen(0, '127.0.0.1', resolve));
    localUrl = `http://127.0.0.1:${(local.address() as AddressInfo).port}/hooks`;
  });

  afterAll(async () => {
    local.closeAllConnections();
    await new Promise((resolve) => local.close(resolve));
  });

  /** Runs `listen --input spec` until the test is done with it; the relay's URL from what it printed. */
  async function listening(spec: string) {
    const io = captureIo();
    const stop = new AbortController();
    const done = runListen(['--input', spec, '--forward-to', localUrl], io, stop.signal);
    const relay = await until('the relay', () => /Relaying .* from (http:\/\/\S+\/) to/.exec(io.out())?.[1]);
    return { io, relay, stop: async () => (stop.abort(), done) };
  }

  describe('paygate listen --input (another API: a validating relay, no gateway)', () => {
    it.each([
      [
        'a webhook found by its discriminator',
        '',
        'application/json',
        '{"event":"parcel.shipped","object":"event","parcel_id":"pcl_1","shipped_at":"2026-01-02T03:04:05Z"}',
        '--> parcel.shipped POST / valid',
      ],
      [
        'a callback found by its discriminator',
        '',
        'application/json',
        '{"event":"parcel.delivered","object":"event","parcel_id":"pcl_1","signed_by":"Ada"}',
        '--> parcel.delivered POST / valid',
      ],
      [
        'a broken one, still forwarded',
        '',
        'application/json',
        '{"event":"parcel.shipped","object":"event","parcel_id":"x"}',
        '!!  parcel.shipped POST / INVALID: /parcel_id: must match pattern "^pcl_"; /: must have required property \'shipped_at\'',
      ],
      ['an event known by name, on its path', 'heartbeat', 'text/plain', 'alive', '--> heartbeat POST /heartbeat valid'],
      [
        'a callback known by name, broken',
        'createExport.status',
        'application/json',
        '{"export_id":"e","state":"gone"}',
        '!!  createExport.status POST /createExport.status INVALID: /state: must be equal to one of the allowed values',
      ],
      [
        'a name the API does not have',
        'parcel.stolen',
        'application/json',
        '{}',
        '!!  parcel.stolen POST /parcel.stolen no event of this API has that name',
      ],
    ])('events31: %s', { timeout: 60_000 }, async (_name, route, contentType, body, line) => {
      const { io, relay, stop } = await listening('test/fixtures/events31/openapi.yaml');
      try {
        expect(io.err()).toContain('events known by name at');
        relayed.length = 0;
        const res = await fetch(`${relay}${route}`, {
          method: 'POST',
          headers: { 'content-type': contentType, 'x-parcel-signature': 'sig' },
          body,
        });
        // forwarded unchanged, answered with the local's own status
        expect(res.status).toBe(204);
        expect(relayed).toMatchObject([
          { raw: body, url: '/hooks', headers: { 'content-type': contentType, 'x-parcel-signature': 'sig' } },
        ]);
        await until('the printed verdict', () => (io.out().includes('<-- [204]') ? true : undefined));
        expect(io.out()).toContain(line);
      } finally {
        expect(await stop()).toBe(EXIT.ok);
      }
    });

    it('Figma: its callback events, found by event_type', { timeout: 60_000 }, async () => {
      const { io, relay, stop } = await listening('test/fixtures/realworld/figma/openapi.yaml');
      try {
        expect(io.err()).toContain(
          'Events: DEV_MODE_STATUS_UPDATE, FILE_COMMENT, FILE_DELETE, FILE_UPDATE, FILE_VERSION_UPDATE, LIBRARY_PUBLISH, PING (found by their event_type).',
        );
        const ping = { event_type: 'PING', passcode: 'p', timestamp: '2026-01-02T03:04:05Z', webhook_id: '1' };
        await fetch(relay, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ping) });
        await fetch(relay, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ...ping, event_type: 'FILE_UPDATE' }),
        });
        await until('two verdicts', () => (io.out().split('<-- [').length === 3 ? true : undefined));
        expect(io.out()).toContain('--> PING POST / valid');
        expect(io.out()).toContain("!!  FILE_UPDATE POST / INVALID: /: must have required property 'file_key'");
      } finally {
        await stop();
      }
    });

    it.each([
      [['--events', 'PING'], /--events is for the Paygate gateway/],
      [['--client-id', 'pk'], /--client-id is for the Paygate gateway/],
    ])('refuses gateway flags with --input: %j', async (extra, message) => {
      const run = runListen(
        ['--input', 'test/fixtures/events31/openapi.yaml', '--forward-to', localUrl, ...extra],
        captureIo(),
        AbortSignal.abort(),
      );
      await expect(run).rejects.toThrow(UsageError);
      await expect(run).rejects.toThrow(message);
    });

    it('says so when the spec has no events', async () => {
      const io = captureIo();
      expect(await runListen(['--input', 'test/fixtures/shelf/openapi.yaml', '--forward-to', localUrl], io, AbortSignal.abort())).toBe(
        EXIT.failed,
      );
      expect(io.err()).toMatch(/declares no events \(no webhook or callback with a request body\)/);
    });
  });

  describe('paygate trigger --input (another API)', () => {
    it("says it cannot make another API send an event, lists the spec's events and points at listen --input", async () => {
      const io = captureIo();
      expect(await trigger.run(['--input', 'test/fixtures/realworld/figma/openapi.yaml'], io)).toBe(EXIT.usage);
      expect(io.err()).toContain('it cannot make Figma API send one');
      expect(io.err()).toContain(
        'DEV_MODE_STATUS_UPDATE, FILE_COMMENT, FILE_DELETE, FILE_UPDATE, FILE_VERSION_UPDATE, LIBRARY_PUBLISH, PING',
      );
      expect(io.err()).toContain('paygate listen --input test/fixtures/realworld/figma/openapi.yaml --forward-to');
    });
  });
});
