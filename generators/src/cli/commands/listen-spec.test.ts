/**
 * `paygate listen --input SPEC` and `paygate trigger --input SPEC` for an API that is not Paygate's (D214): no
 * gateway; the relay validates each delivery against the spec's events (by discriminator, or by the relay path for
 * an event known by name) and forwards it unchanged to a receiver on this machine; trigger says what it cannot do.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXIT, UsageError, type CliIo } from '../command.js';
import { runListen } from './listen.js';
import { command as trigger } from './trigger.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

function captureIo(): CliIo & { out: () => string; err: () => string } {
  let out = '';
  let err = '';
  return { cwd: ROOT, stdout: (t) => void (out += t), stderr: (t) => void (err += t), out: () => out, err: () => err };
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const received: { raw: string; headers: IncomingHttpHeaders; url: string }[] = [];
let receiver: Server;
let receiverUrl: string;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ raw: Buffer.concat(chunks).toString('utf8'), headers: req.headers, url: req.url ?? '' });
      res.writeHead(received.length % 2 === 0 ? 202 : 204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});

afterAll(async () => {
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

/** Runs `listen --input spec` until the test is done with it; the relay's URL from what it printed. */
async function listening(spec: string) {
  const io = captureIo();
  const stop = new AbortController();
  const done = runListen(['--input', spec, '--forward-to', receiverUrl], io, stop.signal);
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
      received.length = 0;
      const res = await fetch(`${relay}${route}`, {
        method: 'POST',
        headers: { 'content-type': contentType, 'x-parcel-signature': 'sig' },
        body,
      });
      // forwarded unchanged, answered with the receiver's own status
      expect(res.status).toBe(204);
      expect(received).toMatchObject([{ raw: body, url: '/hooks', headers: { 'content-type': contentType, 'x-parcel-signature': 'sig' } }]);
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
      ['--input', 'test/fixtures/events31/openapi.yaml', '--forward-to', receiverUrl, ...extra],
      captureIo(),
      AbortSignal.abort(),
    );
    await expect(run).rejects.toThrow(UsageError);
    await expect(run).rejects.toThrow(message);
  });

  it('says so when the spec has no events', async () => {
    const io = captureIo();
    expect(await runListen(['--input', 'test/fixtures/shelf/openapi.yaml', '--forward-to', receiverUrl], io, AbortSignal.abort())).toBe(
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
