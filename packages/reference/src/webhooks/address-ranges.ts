import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Which addresses a webhook may reach in production (D35 webhooks never reach private addresses; D97 webhook destinations classified by ipaddr.js): public unicast only. ipaddr.js classifies every IANA
 * special-purpose range (`range()`: loopback, private, link-local, unique-local, site-local, multicast, unspecified,
 * IPv4-mapped, NAT64 `64:ff9b::/96` and `64:ff9b:1::/48` (rfc6052), 6to4 `2002::/16`, Teredo `2001::/32`,
 * documentation `2001:db8::/32`, discard `100::/64`, ORCHID, benchmarking, segment routing, ...); anything but
 * `unicast` is refused. Two gaps of that list are closed here: the deprecated IPv4-compatible `::/96` (`[::127.0.0.1]`
 * is `::7f00:1`, which ipaddr.js calls unicast) and the RFC 9780 dummy prefix `100:0:0:1::/64`. Beyond that, an IPv6
 * address outside `2000::/3`, the only block IANA allocates for global unicast, is refused as not global.
 */

const IPV6_EXTRA: readonly [string, [ipaddr.IPv6, number]][] = [
  ['ipv4Compatible', ipaddr.IPv6.parseCIDR('::/96')],
  ['dummyPrefix', ipaddr.IPv6.parseCIDR('100:0:0:1::/64')],
];
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

/** The name of the non-public range `address` (an IPv4 or IPv6 literal) is in, or undefined when it is public. */
export function nonPublicRange(address: string): string | undefined {
  const host = address.replace(/^\[|\]$/g, '');
  if (isIP(host) === 0) return 'invalid';
  const parsed = ipaddr.parse(host);
  const range = parsed.range();
  if (range !== 'unicast') return range;
  if (parsed.kind() === 'ipv4') return undefined;
  const v6 = parsed as ipaddr.IPv6;
  for (const [name, cidr] of IPV6_EXTRA) if (v6.match(cidr)) return name;
  return v6.match(GLOBAL_UNICAST) ? undefined : 'notGlobalUnicast';
}
