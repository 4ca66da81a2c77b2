import type { LookupFunction } from 'node:net';

/**
 * A resolver for sockets (`lookup` of net.connect / http agents) answering from a table: names in `table` resolve to
 * their address(es), anything else is ENOTFOUND. Lets tests play DNS rebinding (a name that answers a private address
 * when a delivery connects) without a network. `asked` lists the names looked up.
 */
export function fakeDns(table: Record<string, string[]>): LookupFunction & { asked: string[] } {
  const asked: string[] = [];
  const lookup = ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    asked.push(hostname);
    const addresses = table[hostname];
    if (!addresses) {
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
      return;
    }
    const entries = addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    if (options.all) callback(null, entries);
    else callback(null, entries[0]!.address, entries[0]!.family);
  }) as unknown as LookupFunction & { asked: string[] };
  lookup.asked = asked;
  return lookup;
}
