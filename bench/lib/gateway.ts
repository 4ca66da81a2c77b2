/**
 * THE way the benchmarks start the reference gateway: the real `paygate serve` command, configured only through its
 * environment (a raised PAYGATE_RATE_LIMIT so a load test is not answered with 429s), never a bench-only entry point.
 * Every section that runs the gateway (load, POST, cold start, profile) goes through {@link gatewayCommand}, so moving
 * the bin is a change of this one file.
 */
import path from 'node:path';

/** The `paygate` bin, relative to the repository root. */
export const PAYGATE_BIN = 'generators/bin/paygate.js';

/** `node` arguments that run `paygate serve` (after any node flags such as --cpu-prof). */
export function gatewayCommand(root: string): string[] {
  return [path.join(root, PAYGATE_BIN), 'serve'];
}

/** Requests per window for a load test: high enough never to refuse one (the limiter still runs per request). */
export const BENCH_RATE_LIMIT = '1000000000';

export interface GatewayEnvInput {
  partner: { id: string; secret: string };
  /** PGlite data dir (when no databaseUrl). */
  dataDir: string;
  databaseUrl?: string | undefined;
  logLevel?: string;
}

/** The environment of a benchmarked `paygate serve`: production mode (no response validation), as a user deploys it. */
export function gatewayEnv(o: GatewayEnvInput): Record<string, string | undefined> {
  return {
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PAYGATE_PARTNER_CLIENT_ID: o.partner.id,
    PAYGATE_PARTNER_CLIENT_SECRET: o.partner.secret,
    PAYGATE_DATA_DIR: o.dataDir,
    DATABASE_URL: o.databaseUrl,
    PAYGATE_RATE_LIMIT: BENCH_RATE_LIMIT,
    LOG_LEVEL: o.logLevel ?? 'info',
  };
}

/** The partner credential every benchmark gateway is started with, and the headers that present it. */
export const BENCH_PARTNER = { id: 'pk_test_bench_partner', secret: 'ps_test_bench_partner_secret_0123456789' } as const;
export const BENCH_PARTNER_HEADERS = { 'X-Client-ID': BENCH_PARTNER.id, 'X-Client-Secret': BENCH_PARTNER.secret } as const;

/** A seeding POST as the benchmark partner (JSON body, `extra` headers such as X-Merchant-ID): the envelope's `data`. */
export async function benchPost(
  base: string,
  p: string,
  body: unknown,
  extra: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const res = await fetch(`${base}${p}`, {
    method: 'POST',
    headers: { ...BENCH_PARTNER_HEADERS, 'Content-Type': 'application/json', ...extra },
    body: JSON.stringify(body),
  });
  const json = (await res.json()) as { data: Record<string, unknown> };
  if (!res.ok) throw new Error(`POST ${p} -> ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}
