import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeDns } from '../testing/fake-dns.js';
import { nonPublicRange } from './address-ranges.js';
import { checkWebhookUrl } from './endpoints.js';
import { createWebhookTransport, DestinationRefusedError } from './transport.js';

/** D97: every special or deprecated IPv6 range is refused like IPv4-mapped, at registration and when a delivery connects. */

const REFUSED: [string, string, string][] = [
  ['IPv4-compatible loopback (`[::127.0.0.1]` as the URL parser writes it)', '::7f00:1', 'ipv4Compatible'],
  ['IPv4-compatible public IPv4', '::808:808', 'ipv4Compatible'],
  ['IPv4-mapped loopback', '::ffff:127.0.0.1', 'ipv4Mapped'],
  ['IPv4-mapped public IPv4 (refused too: a name for an IPv4 host)', '::ffff:8.8.8.8', 'ipv4Mapped'],
  ['NAT64 well-known prefix 64:ff9b::/96', '64:ff9b::7f00:1', 'rfc6052'],
  ['NAT64 local-use 64:ff9b:1::/48', '64:ff9b:1::a00:1', 'rfc6052'],
  ['6to4 2002::/16 (embedding 127.0.0.1)', '2002:7f00:1::1', '6to4'],
  ['Teredo 2001::/32', '2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
  ['unique local fc00::/7', 'fd12:3456:789a::1', 'uniqueLocal'],
  ['link-local fe80::/10', 'fe80::1', 'linkLocal'],
  ['site-local fec0::/10 (deprecated)', 'fec0::1', 'deprecatedSiteLocal'],
  ['multicast ff00::/8', 'ff02::1', 'multicast'],
  ['documentation 2001:db8::/32', '2001:db8::1', 'reserved'],
  ['discard-only 100::/64', '100::1', 'discard'],
  ['RFC 9780 dummy prefix 100:0:0:1::/64', '100:0:0:1::1', 'dummyPrefix'],
  ['unspecified ::', '::', 'unspecified'],
  ['loopback ::1', '::1', 'loopback'],
  ['outside 2000::/3 (not allocated for global unicast)', '4000::1', 'notGlobalUnicast'],
  ['IPv4 loopback', '127.0.0.1', 'loopback'],
  ['IPv4 private', '10.1.2.3', 'private'],
  ['IPv4 cloud metadata (link-local)', '169.254.169.254', 'linkLocal'],
  ['IPv4 carrier-grade NAT', '100.64.0.1', 'carrierGradeNat'],
];
const PUBLIC = ['8.8.8.8', '93.184.215.14', '2606:4700:4700::1111', '2001:4860:4860::8888', '2a00:1450:4001:80b::200e'];

describe('nonPublicRange', () => {
  it.each(REFUSED)('%s: %s is %s', (_name, address, range) => {
    expect(nonPublicRange(address)).toBe(range);
  });
  it.each(PUBLIC)('%s is public', (address) => {
    expect(nonPublicRange(address)).toBeUndefined();
  });
});

describe('webhook URL registration (production: private destinations denied)', () => {
  const check = (url: string) => () => checkWebhookUrl(url, { allowInsecure: false, allowPrivateDestinations: false });
  it.each(REFUSED.filter(([, a]) => a.includes(':')))('refuses %s', (_name, address, range) => {
    expect(check(`https://[${address}]/hook`)).toThrow(
      expect.objectContaining({ details: { url: expect.stringContaining(`is ${range})`) } }),
    );
  });
  it('refuses https://[::127.0.0.1]/ as written', () => {
    expect(check('https://[::127.0.0.1]/')).toThrow(
      expect.objectContaining({ details: { url: expect.stringMatching(/private, loopback/) } }),
    );
  });
  it.each(PUBLIC.filter((a) => a.includes(':')))('accepts https://[%s]/', (address) => {
    expect(check(`https://[${address}]/hook`)()).toBe(`https://[${address}]/hook`);
  });
});

describe('webhook deliveries to special IPv6 ranges (connect time)', () => {
  let target: Server;
  let port: number;
  let connections = 0;
  beforeAll(async () => {
    target = createServer((_req, res) => res.end('internal'));
    target.on('connection', () => connections++);
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    port = (target.address() as AddressInfo).port;
  });
  afterAll(async () => {
    target.closeAllConnections();
    await new Promise<void>((resolve) => target.close(() => resolve()));
  });

  it.each(REFUSED.filter(([, a]) => a.includes(':')))('refuses %s as a literal host and as a resolved name', async (_name, address) => {
    const transport = createWebhookTransport({ allowPrivateDestinations: false, lookup: fakeDns({ 'hook.rebind.test': [address] }) });
    try {
      for (const url of [`http://[${address}]:${port}/hook`, `http://hook.rebind.test:${port}/hook`]) {
        const err = await transport.post(url, {}, '{}', 2000).then(
          () => new Error('delivered'),
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(DestinationRefusedError);
      }
      expect(connections).toBe(0);
    } finally {
      transport.close();
    }
  });
});
