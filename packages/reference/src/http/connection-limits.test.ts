import { createServer, request, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { connectionBucket, limitConnectionsPerAddress } from './connection-limits.js';

describe('connectionBucket', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:10.1.2.3', '10.1.2.3'],
    ['2001:db8:1:2:aaaa::1', '2001:db8:1:2::/64'],
    ['2001:db8:1:2:ffff:ffff:ffff:ffff', '2001:db8:1:2::/64'],
    ['2001:db8:1:3::1', '2001:db8:1:3::/64'],
    ['::1', '0:0:0:0::/64'],
  ])('%s counts as %s', (address, bucket) => {
    expect(connectionBucket(address)).toBe(bucket);
  });
});

describe('limitConnectionsPerAddress (D96)', () => {
  let server: Server | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const s of sockets.splice(0)) s.destroy();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    server = undefined;
  });

  async function start(max: number, exempt?: (address: string) => boolean): Promise<{ port: number; warnings: string[] }> {
    const warnings: string[] = [];
    server = createServer((_req, res) => res.end('ok'));
    limitConnectionsPerAddress(server, { max, ...(exempt ? { exempt } : {}), logger: { warn: (o) => warnings.push(JSON.stringify(o)) } });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    return { port: (server.address() as AddressInfo).port, warnings };
  }
  /** An open connection from `localAddress`. */
  function hold(port: number, localAddress: string): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const socket = connect({ port, host: '127.0.0.1', localAddress }, () => resolve(socket));
      sockets.push(socket);
      socket.on('error', reject);
    });
  }
  const closedByServer = (socket: Socket) => new Promise<void>((resolve) => socket.once('close', () => resolve()).resume());
  function get(port: number, localAddress: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = request({ port, host: '127.0.0.1', localAddress, path: '/', agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('destroys the connection over the cap at accept; other addresses are served; logged once; room again after a close', async () => {
    const { port, warnings } = await start(2);
    const [first] = await Promise.all([hold(port, '127.0.0.1'), hold(port, '127.0.0.1')]);
    const third = await hold(port, '127.0.0.1');
    await closedByServer(third);
    const fourth = await hold(port, '127.0.0.1');
    await closedByServer(fourth);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('"address":"127.0.0.1"');
    // another address is not affected
    expect(await get(port, '127.0.0.2')).toBe(200);
    // one of the two closes: the address may open one more
    first!.destroy();
    while ((await new Promise<number>((resolve) => server!.getConnections((_e, n) => resolve(n)))) > 1)
      await new Promise((r) => setImmediate(r));
    expect(await get(port, '127.0.0.1')).toBe(200);
  });

  it('exempt addresses (trusted proxies) and max 0 are not capped', async () => {
    const { port } = await start(1, (address) => address === '127.0.0.3');
    await Promise.all([hold(port, '127.0.0.3'), hold(port, '127.0.0.3')]);
    expect(await get(port, '127.0.0.3')).toBe(200);
    await afterEachLike();
    const off = await start(0);
    await Promise.all([hold(off.port, '127.0.0.1'), hold(off.port, '127.0.0.1')]);
    expect(await get(off.port, '127.0.0.1')).toBe(200);
  });

  async function afterEachLike(): Promise<void> {
    for (const s of sockets.splice(0)) s.destroy();
    server?.closeAllConnections();
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
  }
});
