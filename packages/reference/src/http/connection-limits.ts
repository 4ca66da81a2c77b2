import type { Server } from 'node:http';
import { isIPv6, type Socket } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Where the cap says that an address reached it (pino's shape). */
export interface ConnectionLimitLogger {
  warn(obj: object, msg?: string): void;
}

export interface ConnectionsPerAddressOptions {
  /** Open connections one client address may hold (PAYGATE_MAX_CONNECTIONS_PER_ADDRESS); 0 = no cap. */
  max: number;
  /**
   * Addresses the cap does not apply to: the proxies PAYGATE_TRUST_PROXY trusts (every client behind a load balancer
   * arrives from its address; the global cap still applies).
   */
  exempt?: (address: string) => boolean;
  logger?: ConnectionLimitLogger;
}

/**
 * The address a connection counts against: an IPv4 address as is (IPv4-mapped IPv6 as its IPv4 form), an IPv6
 * address by its /64 (one host usually holds a whole /64, so counting single addresses would cap nothing).
 */
export function connectionBucket(address: string): string {
  if (!isIPv6(address)) return address;
  const parsed = ipaddr.IPv6.parse(address);
  if (parsed.isIPv4MappedAddress()) return parsed.toIPv4Address().toString();
  return `${parsed.parts
    .slice(0, 4)
    .map((p) => p.toString(16))
    .join(':')}::/64`;
}

/**
 * A cap on the connections each client address holds at once, on top of the server's global `maxConnections` (D96 early answers close the connection, bodies counted):
 * one address (slow-body sockets, a slowloris) cannot take every slot and starve the others. A connection over the
 * cap is destroyed when it is accepted, before a byte is read. Each address that reaches the cap is logged once, until
 * it is under the cap again.
 */
export function limitConnectionsPerAddress(server: Server, options: ConnectionsPerAddressOptions): void {
  if (options.max <= 0) return;
  const open = new Map<string, number>();
  const logged = new Set<string>();
  /** Whether `socket` may stay (counted until it closes); false: destroy it. */
  const admit = (socket: Socket): boolean => {
    const address = socket.remoteAddress;
    if (address === undefined || options.exempt?.(address)) return true;
    const bucket = connectionBucket(address);
    const count = open.get(bucket) ?? 0;
    if (count >= options.max) {
      if (!logged.has(bucket)) {
        logged.add(bucket);
        options.logger?.warn(
          { address: bucket, max: options.max },
          'connections from one address reached PAYGATE_MAX_CONNECTIONS_PER_ADDRESS; more are refused',
        );
      }
      return false;
    }
    open.set(bucket, count + 1);
    socket.once('close', () => {
      const left = (open.get(bucket) ?? 1) - 1;
      if (left <= 0) open.delete(bucket);
      else open.set(bucket, left);
      if (left < options.max) logged.delete(bucket);
    });
    return true;
  };
  // Refused before the HTTP server's own 'connection' listener sets a parser up for it: a flood of refused connections
  // costs as little as Node's accept allows (the 'connection' event is the server's own, emitted by net for each one).
  // why the casts: emit's overloads (one per event) cannot be re-declared by a function expression; arguments pass through
  const emit = server.emit;
  // every event of the server passes here (a 'request' per request): its arguments are handed on as they are, without
  // collecting them into an array and spreading it again (D166 per-request work trimmed)
  server.emit = function (this: Server, event: string | symbol, socket?: unknown): boolean {
    if (event === 'connection' && !admit(socket as Socket)) {
      (socket as Socket).destroy();
      return true;
    }
    // biome-ignore lint/complexity/noArguments: the caller's arguments, whatever their number
    return Reflect.apply(emit, this, arguments);
  } as Server['emit'];
}
