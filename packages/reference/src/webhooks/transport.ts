import { lookup as systemLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import type https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { nonPublicRange } from './address-ranges.js';

/**
 * How webhook deliveries reach receivers (decision D35). In production every connection goes through
 * `request-filtering-agent`: the address a host name resolves to is checked when the socket connects (after DNS, so a
 * name that resolved to a public address at registration and to 127.0.0.1 now, DNS rebinding, is refused too), and
 * literal addresses before connecting. Refused: every address that is not public unicast (loopback, RFC 1918 private,
 * link-local including the 169.254.169.254 cloud metadata address, unique-local IPv6, carrier-grade NAT, reserved,
 * multicast, 0.0.0.0 / ::, IPv4-mapped IPv6). On top of it, `nonPublicRange` (D97 webhook destinations classified by ipaddr.js) refuses the IPv6 ranges its
 * classification calls unicast (IPv4-compatible `::/96`, anything outside `2000::/3`): for literal hosts before the
 * request, for resolved names in the resolver the sockets use. The sandbox may allow them for local receivers.
 */
export interface WebhookTransportOptions {
  /** Let deliveries reach private, loopback, link-local and metadata addresses (sandbox only). Default false. */
  allowPrivateDestinations?: boolean;
  /** The resolver sockets use (default `dns.lookup`); tests inject one to play DNS rebinding offline. */
  lookup?: LookupFunction;
}

export interface WebhookResponse {
  status: number;
  /** The receiver's `Retry-After` header, when it sent one (honoured on 429 and 503, D79). */
  retryAfter?: string;
}

export interface WebhookTransport {
  /** POST `body` to `url`. Redirects are not followed. Rejects on network errors, refusals and the timeout. */
  post(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<WebhookResponse>;
  /** Close idle keep-alive sockets. */
  close(): void;
}

/** A delivery the SSRF guard refused before any byte was sent. */
export class DestinationRefusedError extends Error {
  override readonly name = 'DestinationRefusedError';
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(
      `destination refused: ${host === address ? address : `${host} resolves to ${address}`}, a private, loopback, ` +
        'link-local or metadata address (deliveries go to public addresses only)',
    );
  }
}

/**
 * request-filtering-agent reports a refusal as a plain Error, "DNS lookup <address>(family:<f>, host:<host>) is not
 * allowed. Because, ...". The test of this module pins that wording, so a library update that changes it fails there.
 */
const REFUSAL = /^DNS lookup (.+?)\(family:[^,]*, host:([^)]*)\) is not allowed/;

export function asDestinationRefused(err: unknown, url: string): DestinationRefusedError | undefined {
  if (err instanceof DestinationRefusedError) return err;
  const m = err instanceof Error ? REFUSAL.exec(err.message) : null;
  if (!m) return undefined;
  const address = m[1] ?? '';
  const host = m[2] && m[2] !== 'undefined' ? m[2] : new URL(url).hostname.replace(/^\[|\]$/g, '');
  return new DestinationRefusedError(host, address);
}

/** `lookup` that fails with DestinationRefusedError when a name resolves to an address `nonPublicRange` refuses. */
function publicOnlyLookup(lookup: LookupFunction): LookupFunction {
  return ((
    hostname: string,
    options: { all?: boolean },
    callback: (err: Error | null, address?: string | LookupAddress[], family?: number) => void,
  ) => {
    lookup(hostname, options, ((err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => {
      if (err) {
        callback(err);
        return;
      }
      const addresses = Array.isArray(address) ? address.map((a) => a.address) : [address];
      const refused = addresses.find((a) => nonPublicRange(a) !== undefined);
      if (refused !== undefined) callback(new DestinationRefusedError(hostname, refused));
      else callback(null, address, family);
    }) as Parameters<LookupFunction>[2]);
  }) as LookupFunction;
}

export function createWebhookTransport(options: WebhookTransportOptions = {}): WebhookTransport {
  const allowPrivate = options.allowPrivateDestinations === true;
  const lookup = allowPrivate ? options.lookup : publicOnlyLookup(options.lookup ?? (systemLookup as LookupFunction));
  const base = { keepAlive: true, ...(lookup ? { lookup } : {}) };
  /**
   * D187: node:https and request-filtering-agent (with its own copy of ipaddr.js) are loaded by the first delivery,
   * not by the start of every gateway process (the worker builds its transport at start-up).
   */
  let loading: Promise<{ https: typeof https; agents: { http: http.Agent; https: https.Agent } }> | undefined;
  const load = () =>
    (loading ??= (async () => {
      const httpsModule = (await import('node:https')).default;
      if (allowPrivate) return { https: httpsModule, agents: { http: new http.Agent(base), https: new httpsModule.Agent(base) } };
      const { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } = await import('request-filtering-agent');
      return {
        https: httpsModule,
        agents: {
          http: new RequestFilteringHttpAgent({ ...base, allowPrivateIPAddress: false, allowMetaIPAddress: false }),
          https: new RequestFilteringHttpsAgent({ ...base, allowPrivateIPAddress: false, allowMetaIPAddress: false }),
        },
      };
    })());
  return {
    post(url, headers, body, timeoutMs) {
      const target = new URL(url);
      const secure = target.protocol === 'https:';
      if (!secure && target.protocol !== 'http:') return Promise.reject(new Error(`unsupported URL scheme ${target.protocol}`));
      const literal = target.hostname.replace(/^\[|\]$/g, '');
      if (!allowPrivate && isIP(literal) !== 0 && nonPublicRange(literal) !== undefined)
        return Promise.reject(new DestinationRefusedError(literal, literal));
      const signal = AbortSignal.timeout(timeoutMs);
      return load().then(
        ({ https: httpsModule, agents }) =>
          new Promise<WebhookResponse>((resolve, reject) => {
            // the timeout covers the whole exchange: connecting, the answer's headers and its body
            const fail = (err: Error) => {
              if (signal.aborted) reject(Object.assign(new Error(`timeout after ${timeoutMs} ms`), { name: 'TimeoutError' }));
              else reject(asDestinationRefused(err, url) ?? err);
            };
            const request = (secure ? httpsModule : http).request(target, {
              method: 'POST',
              headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
              agent: secure ? agents.https : agents.http,
              signal,
            });
            request.on('error', fail);
            request.on('response', (res) => {
              res.on('error', fail);
              res.resume(); // drain, so the socket can be reused
              const retryAfter = res.headers['retry-after'];
              res.on('end', () =>
                resolve(retryAfter === undefined ? { status: res.statusCode ?? 0 } : { status: res.statusCode ?? 0, retryAfter }),
              );
            });
            request.end(body);
          }),
      );
    },
    close() {
      // nothing to close before the first delivery loaded the agents
      void loading?.then(
        ({ agents }) => {
          agents.http.destroy();
          agents.https.destroy();
        },
        () => undefined, // a failed load was the delivery's error already
      );
    },
  };
}
