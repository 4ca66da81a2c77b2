import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { fakeDns } from '../testing/fake-dns.js';
import { asDestinationRefused, createWebhookTransport, DestinationRefusedError } from './transport.js';

/**
 * The SSRF guard of webhook deliveries (D35 webhooks never reach private addresses), offline: a listener on 127.0.0.1 plays the internal service an attacker
 * aims at. Host names are resolved by an injected resolver (the `lookup` the sockets use), so DNS rebinding is played
 * without a network: `hooks.rebind.test` answers 127.0.0.1 when the delivery connects.
 */

describe('webhook transport SSRF guard', () => {
  let target: Server;
  let port: number;
  let connections = 0;
  const requests: string[] = [];

  beforeAll(async () => {
    target = createServer((req, res) => {
      requests.push(`${req.method} ${req.url}`);
      req.resume();
      req.on('end', () => res.writeHead(200).end('internal secrets'));
    });
    target.on('connection', () => connections++);
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    port = (target.address() as AddressInfo).port;
  });
  afterAll(async () => {
    target.closeAllConnections();
    await new Promise<void>((resolve) => target.close(() => resolve()));
  });
  beforeEach(() => {
    connections = 0;
    requests.length = 0;
  });

  const dns = () =>
    fakeDns({
      'hooks.rebind.test': ['127.0.0.1'],
      'metadata.rebind.test': ['169.254.169.254'],
      'ten.rebind.test': ['10.0.0.7'],
      'mixed.rebind.test': ['127.0.0.1', '93.184.215.14'],
      'v6.rebind.test': ['::1'],
      'mapped.rebind.test': ['::ffff:127.0.0.1'],
    });

  it.each([
    ['a literal loopback address', () => `http://127.0.0.1:${port}/hook`, '127.0.0.1'],
    ['loopback written as one hex number', () => `http://0x7f000001:${port}/hook`, '127.0.0.1'],
    ['loopback as IPv4-mapped IPv6', () => `http://[::ffff:127.0.0.1]:${port}/hook`, '::ffff:7f00:1'],
    ['a name resolving to loopback when the delivery connects (DNS rebinding)', () => `http://hooks.rebind.test:${port}/hook`, '127.0.0.1'],
    ['the same over https', () => `https://hooks.rebind.test:${port}/hook`, '127.0.0.1'],
    ['a name resolving to loopback IPv6', () => `http://v6.rebind.test:${port}/hook`, '::1'],
    ['a name resolving to IPv4-mapped loopback', () => `http://mapped.rebind.test:${port}/hook`, '::ffff:127.0.0.1'],
    ['a name with a public and a loopback address', () => `http://mixed.rebind.test:${port}/hook`, '127.0.0.1'],
    ['a name resolving to the cloud metadata address', () => `http://metadata.rebind.test:${port}/latest/meta-data/`, '169.254.169.254'],
    ['a name resolving to RFC 1918 space', () => `http://ten.rebind.test:${port}/hook`, '10.0.0.7'],
    ['the metadata address itself', () => 'http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
  ])('refuses %s: the listener receives nothing', async (_name, url, address) => {
    const transport = createWebhookTransport({ allowPrivateDestinations: false, lookup: dns() });
    try {
      const err = await transport.post(url(), { 'content-type': 'application/json' }, '{"x":1}', 2000).then(
        () => new Error('delivered'),
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(DestinationRefusedError);
      expect((err as DestinationRefusedError).address).toBe(address);
      expect((err as Error).message).toMatch(/^destination refused: .*a private, loopback, link-local or metadata address/);
      expect(connections).toBe(0);
      expect(requests).toEqual([]);
    } finally {
      transport.close();
    }
  });

  it('refuses localhost through the system resolver too', async () => {
    const transport = createWebhookTransport({ allowPrivateDestinations: false });
    try {
      await expect(transport.post(`http://localhost:${port}/hook`, {}, '{}', 2000)).rejects.toMatchObject({
        name: 'DestinationRefusedError',
        host: 'localhost',
      });
      expect(connections).toBe(0);
    } finally {
      transport.close();
    }
  });

  it('control: with private destinations allowed (sandbox) the same listener receives the delivery through the same resolver', async () => {
    const lookup = dns();
    const transport = createWebhookTransport({ allowPrivateDestinations: true, lookup });
    try {
      await expect(
        transport.post(`http://hooks.rebind.test:${port}/hook`, { 'content-type': 'application/json' }, '{"x":1}', 2000),
      ).resolves.toEqual({ status: 200 });
      expect(lookup.asked).toContain('hooks.rebind.test');
      expect(requests).toEqual(['POST /hook']);
      expect(connections).toBe(1);
    } finally {
      transport.close();
    }
  });

  it('reads the refusal of request-filtering-agent (pinned wording: a library update that changes it fails here)', () => {
    const named = asDestinationRefused(
      new Error('DNS lookup 127.0.0.1(family:4, host:hooks.rebind.test) is not allowed. Because, It is private IP address.'),
      'https://hooks.rebind.test/x',
    );
    expect(named).toMatchObject({ host: 'hooks.rebind.test', address: '127.0.0.1' });
    expect(named?.message).toBe(
      'destination refused: hooks.rebind.test resolves to 127.0.0.1, a private, loopback, link-local or metadata address (deliveries go to public addresses only)',
    );
    const literal = asDestinationRefused(
      new Error('DNS lookup 10.1.2.3(family:undefined, host:undefined) is not allowed. Because, It is private IP address.'),
      'http://10.1.2.3/',
    );
    expect(literal?.message).toMatch(/^destination refused: 10\.1\.2\.3, a private/);
    expect(asDestinationRefused(new Error('connect ECONNREFUSED 203.0.113.10:9'), 'http://x.example/')).toBeUndefined();
  });
});

describe('webhook transport timeouts', () => {
  it('a receiver that sends headers and then stalls the body times out like one that never answers', async () => {
    const server = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('partial'); // never ends
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const transport = createWebhookTransport({ allowPrivateDestinations: true });
    try {
      const port = (server.address() as AddressInfo).port;
      await expect(transport.post(`http://127.0.0.1:${port}/slow`, {}, '{}', 300)).rejects.toMatchObject({
        name: 'TimeoutError',
        message: 'timeout after 300 ms',
      });
    } finally {
      transport.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
