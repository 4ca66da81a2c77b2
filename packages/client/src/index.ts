/**
 * @paygate/client: typed client for the Paygate API. The hand-written runtime (transport with auth headers,
 * idempotency keys and retries; results; pagination; return-URL callback verification) plus the generated
 * `createPaygateClient`.
 *
 * @example
 * ```ts
 * import { createPaygateClient, paginate, verifyCallback } from '@paygate/client';
 *
 * const paygate = createPaygateClient({ baseUrl: process.env.PAYGATE_URL!, clientId: '...', clientSecret: '...' });
 * ```
 * @packageDocumentation
 */
// Everything that runs in a browser too (./browser.ts is the `browser` export condition's entry).
export * from './browser.js';
// Node only (node:crypto): verifies the return-URL callback hash on the merchant's server.
export {
  CALLBACK_HASH_FIELDS,
  computeCallbackHash,
  verifyCallback,
  type CallbackFields,
  type CallbackHashField,
} from './runtime/callback.js';
