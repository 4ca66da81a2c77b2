import { createHash } from 'node:crypto';

import { CHECKOUT_SDK_SCRIPT } from './generated/checkout-sdk.gen.js';

// The SDK itself is a browser program written in TypeScript (./browser/checkout-sdk.ts), bundled to ES2017 into
// ./generated/checkout-sdk.gen.ts by `npm run build:sdk`; this module only serves it.
const SOURCE = CHECKOUT_SDK_SCRIPT;

/** The SDK source (what GET /sdk/checkout.js serves, `Content-Type: application/javascript; charset=utf-8`). */
export function checkoutSdkSource(): string {
  return SOURCE;
}

/** Strong ETag (quoted, ready for the `ETag` header): `"sha256-<base64url of sha256(source)>"`. */
export const CHECKOUT_SDK_ETAG = `"sha256-${createHash('sha256').update(SOURCE, 'utf8').digest('base64url')}"`;
