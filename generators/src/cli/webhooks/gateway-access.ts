/**
 * The gateway `paygate listen` and `paygate trigger` talk to: base URL and a partner credential from flags or the
 * environment, and a typed client (@paygate/client) over them. An API failure becomes an error naming the operation,
 * the gateway's error code and what to check.
 */
import { createPaygateClient } from '@paygate/client';
import { EnvironmentError, UsageError } from '../command.js';

export const GATEWAY_FLAGS = {
  'base-url': { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
} as const;

export const GATEWAY_FLAGS_HELP = `  --base-url URL         the gateway (or PAYGATE_BASE_URL; default http://127.0.0.1:8080, what \`paygate serve\` starts)
  --client-id ID         a partner credential (or PAYGATE_CLIENT_ID; \`paygate serve\` prints the sandbox one)
  --client-secret SECRET its secret (or PAYGATE_CLIENT_SECRET, which keeps it out of the process list)`;

export interface GatewayAccess {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
}

export type PaygateClient = ReturnType<typeof createPaygateClient>;

export function gatewayAccess(flags: {
  'base-url'?: string | undefined;
  'client-id'?: string | undefined;
  'client-secret'?: string | undefined;
}): GatewayAccess {
  const baseUrl = flags['base-url'] ?? process.env['PAYGATE_BASE_URL'] ?? 'http://127.0.0.1:8080';
  try {
    const url = new URL(baseUrl);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw new UsageError(`--base-url must be an http(s) URL, got ${JSON.stringify(baseUrl)}`);
  }
  const clientId = flags['client-id'] ?? process.env['PAYGATE_CLIENT_ID'];
  const clientSecret = flags['client-secret'] ?? process.env['PAYGATE_CLIENT_SECRET'];
  if (clientId === undefined || clientSecret === undefined) {
    throw new UsageError(
      'a partner credential is required: --client-id and --client-secret (or PAYGATE_CLIENT_ID / PAYGATE_CLIENT_SECRET); `paygate serve` prints the sandbox partner client id and keeps the secret in .paygate/sandbox-partner.json',
    );
  }
  return { baseUrl: baseUrl.replace(/\/+$/, ''), clientId, clientSecret };
}

/** A client for the partner, or for one of its merchants (X-Merchant-ID). No retries: each call says what it did. */
export function partnerClient(access: GatewayAccess, merchantId?: string): PaygateClient {
  return createPaygateClient({ ...access, ...(merchantId === undefined ? {} : { merchantId }), maxRetries: 0 });
}

/** A failed gateway call: the operation, the HTTP status and the gateway's error code and message. */
export class GatewayCallError extends Error {
  override name = 'GatewayCallError';
}

type Outcome<T> =
  | { ok: true; data: T }
  | { ok: false; status: number; error: { message?: string; error?: { code?: string; message?: string; details?: unknown } } };

/**
 * The data of a successful call, or a GatewayCallError naming `operation`. A network failure is an EnvironmentError
 * (the gateway is not running or the base URL is wrong).
 */
export async function must<T>(operation: string, access: GatewayAccess, call: Promise<Outcome<T>>): Promise<T> {
  let result: Outcome<T>;
  try {
    result = await call;
  } catch (error) {
    throw new EnvironmentError(
      `Cannot reach the gateway at ${access.baseUrl} (${operation}: ${(error as Error).message}). Start it (\`npx paygate serve\`) or fix --base-url.`,
    );
  }
  if (result.ok) return result.data;
  const e = result.error.error;
  const hint = result.status === 401 ? ' Check --client-id/--client-secret (a partner credential).' : '';
  throw new GatewayCallError(
    `${operation} failed: HTTP ${result.status} ${e?.code ?? ''} ${e?.message ?? result.error.message ?? ''}${e?.details ? ` ${JSON.stringify(e.details)}` : ''}.${hint}`.replace(
      / +/g,
      ' ',
    ),
  );
}
