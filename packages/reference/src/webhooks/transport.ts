import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';

/**
 * How webhook deliveries reach receivers (decision D35). In production every connection goes through
 * `request-filtering-agent`: the address a host name resolves to is checked when the socket connects (after DNS, so a
 * name that resolved to a public address at registration and to 127.0.0.1 now, DNS rebinding, is refused too), and
 * literal addresses before connecting. Refused: every address that is not public unicast (loopback, RFC 1918 private,
 * link-local including the 169.254.169.254 cloud metadata address, unique-local IPv6, carrier-grade NAT, reserved,
 * multicast, 0.0.0.0 / ::, IPv4-mapped IPv6). The sandbox may allow them for local receivers.
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
  const m = err instanceof Error ? REFUSAL.exec(err.message) : null;
  if (!m) return undefined;
  const address = m[1] ?? '';
  const host = m[2] && m[2] !== 'undefined' ? m[2] : new URL(url).hostname.replace(/^\[|\]$/g, '');
  return new DestinationRefusedError(host, address);
}

export function createWebhookTransport(options: WebhookTransportOptions = {}): WebhookTransport {
  const base = { keepAlive: true, ...(options.lookup ? { lookup: options.lookup } : {}) };
  const agents = options.allowPrivateDestinations
    ? { http: new http.Agent(base), https: new https.Agent(base) }
    : {
        http: new RequestFilteringHttpAgent({ ...base, allowPrivateIPAddress: false, allowMetaIPAddress: false }),
        https: new RequestFilteringHttpsAgent({ ...base, allowPrivateIPAddress: false, allowMetaIPAddress: false }),
      };
  return {
    post(url, headers, body, timeoutMs) {
      const target = new URL(url);
      const secure = target.protocol === 'https:';
      if (!secure && target.protocol !== 'http:') return Promise.reject(new Error(`unsupported URL scheme ${target.protocol}`));
      const signal = AbortSignal.timeout(timeoutMs);
      return new Promise<WebhookResponse>((resolve, reject) => {
        // the timeout covers the whole exchange: connecting, the answer's headers and its body
        const fail = (err: Error) => {
          if (signal.aborted) reject(Object.assign(new Error(`timeout after ${timeoutMs} ms`), { name: 'TimeoutError' }));
          else reject(asDestinationRefused(err, url) ?? err);
        };
        const request = (secure ? https : http).request(target, {
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
          res.on('end', () => resolve(retryAfter === undefined ? { status: res.statusCode ?? 0 } : { status: res.statusCode ?? 0, retryAfter }));
        });
        request.end(body);
      });
    },
    close() {
      agents.http.destroy();
      agents.https.destroy();
    },
  };
}
