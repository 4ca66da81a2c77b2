import { requestFingerprint } from './store.js';

/** Deterministic JSON of a request body (the idempotency fingerprint input): keys sorted, file bytes as a digest. */
export function canonical(value: unknown): string {
  const seen = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (Buffer.isBuffer(v) || v instanceof Uint8Array) return { $bytes: requestFingerprint('', '', v as Uint8Array) };
    if (Array.isArray(v)) return v.map(seen);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(v).sort()) out[key] = seen((v as Record<string, unknown>)[key]);
    return out;
  };
  return JSON.stringify(seen(value) ?? null);
}

/** The request body of a typed request (the fingerprint's input). */
export function bodyOf(request: unknown): unknown {
  return typeof request === 'object' && request !== null && 'body' in request ? request.body : undefined;
}
