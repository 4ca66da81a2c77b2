/**
 * @paygate/contract: the Paygate API contract as code, generated from openapi/ (npm run generate). One package owns
 * the type layer, the bundled API document, the route table, the error codes, the enums and the webhook event types;
 * @paygate/server, @paygate/client and @paygate/webhooks import it.
 *
 * @example
 * ```ts
 * import { MopType, operations, type components } from '@paygate/contract';
 *
 * const methods: readonly MopType[] = MopType; // ['UPI', 'CREDIT_CARD', ...]
 * type Order = components['schemas']['Order'];
 * ```
 * @packageDocumentation
 */
export type { ApiDocument, ErrorEnvelope, HttpMethod, OperationRoute, SecurityRequirement, SecuritySchemeInfo } from './types.js';
export * from './generated/index.js';
