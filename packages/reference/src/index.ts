/**
 * @paygate/reference: the stateful reference gateway (sandbox). This entry exposes the foundation: database,
 * domain rules, services and the background worker. HTTP handlers are wired onto these services separately.
 * @packageDocumentation
 */
export { loadConfig, DEFAULT_WEBHOOK_RETRY_SCHEDULE, type ReferenceConfig } from './core/config.js';
export { openReference, type ReferenceRuntime } from './runtime.js';

export type { Db, QueryResult } from './db/db.js';
export { openDb, type OpenDbOptions } from './db/open.js';
export { withTransactionScopes, type ScopedDb } from './db/ambient.js';
export { migrate, loadMigrations, MIGRATIONS_DIR } from './db/migrate.js';
export { openPglite } from './db/pglite.js';
export { openPostgres } from './db/postgres.js';

export { DomainError, isDomainError, ERROR_STATUS, validationError, type ErrorCode, type ErrorDetails } from './core/errors.js';
export { parseAmount, formatAmount, amountToNumber } from './core/money.js';
export { systemClock, ManualClock, formatIso, parseIso, type Clock, type Micros } from './core/clock.js';
export { pageLinks, pageRequest, DEFAULT_PAGE_SIZE, type Page } from './core/pagination.js';
export { EventType, type EventEnvelope } from './webhooks/events.js';
export { ID_PATTERN } from './core/ids.js';
export type { CreateOrderInput } from './orders/input.js';
export { MAX_UPLOAD_BYTES, ALLOWED_UPLOAD_TYPES } from './core/files.js';

export { randomIds, type IdSource, type ServiceDeps } from './core/deps.js';
export { resolveScope, requirePartner, requireMerchant, type Principal, type Scope } from './core/scope.js';
export { authenticate, ensurePartnerCredential, issueMerchantCredentials, type IssuedCredentials } from './credentials/service.js';
export {
  createMerchant,
  getMerchant,
  listMerchants,
  patchMerchant,
  setKycStatus,
  uploadMerchantDocument,
  MERCHANT_DOCUMENT_TYPES,
  type MerchantRecord,
  type MerchantListItem,
} from './merchants/service.js';
export { createDocumentStore, readDocument, type DocumentStore, type UploadedFile } from './core/documents.js';
export {
  createOrder,
  getOrder,
  patchOrder,
  attachOrderDocument,
  expireDueOrders,
  ORDER_DOCUMENT_TYPES,
  type CreateOrderResult,
} from './orders/service.js';
export {
  getCheckoutSession,
  completeCheckoutSession,
  type CheckoutResult,
  type CallbackFields,
  type CheckoutOutcome,
} from './checkout/service.js';
export { completeS2sPayment, processDueS2sCollections } from './payments/s2s.js';
export { getPayment, listPayments, type PaymentFilters } from './payments/service.js';
export { createRefund, getRefund, listRefunds, completeRefund, processDueRefunds, type RefundFilters } from './refunds/service.js';
export { runSettlements, getSettlement, listSettlements } from './settlements/service.js';
export { createWebhookEndpoint, listWebhookEndpoints, deleteWebhookEndpoint, type WebhookEndpointView } from './webhooks/endpoints.js';
export {
  claimIdempotencyKey,
  recordIdempotentOutcome,
  idempotencyScope,
  requestFingerprint,
  isValidIdempotencyKey,
  type IdempotencyClaim,
} from './idempotency/store.js';
export { answerMalformedRequests } from './http/client-error.js';
export { createRateLimiter, type RateDecision, type RateLimiter, type RateLimitOptions } from './http/rate-limit.js';
export { DEFAULT_RATE_LIMIT, DEFAULT_RATE_WINDOW_SECONDS } from './core/config.js';
export { advanceMerchantClock, merchantNow, readMerchantClock, type MerchantClockView } from './core/merchant-clock.js';
export { merchantDetailsView } from './merchants/view.js';

export { createWorker, type Worker, type WorkerOptions, type TickReport } from './worker.js';
