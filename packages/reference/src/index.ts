/**
 * @paygate/reference: the stateful reference gateway (sandbox). This entry exposes the foundation: database,
 * domain rules, services and the background worker. HTTP handlers are wired onto these services separately.
 * @packageDocumentation
 */
export { loadConfig, DEFAULT_WEBHOOK_RETRY_SCHEDULE, type ReferenceConfig } from './config.js';
export { openReference, type ReferenceRuntime } from './runtime.js';

export type { Db, QueryResult } from './db/db.js';
export { openDb, type OpenDbOptions } from './db/open.js';
export { withTransactionScopes, type ScopedDb } from './db/ambient.js';
export { migrate, loadMigrations, MIGRATIONS_DIR } from './db/migrate.js';
export { openPglite } from './db/pglite.js';
export { openPostgres } from './db/postgres.js';

export { DomainError, isDomainError, ERROR_STATUS, validationError, type ErrorCode, type ErrorDetails } from './domain/errors.js';
export { parseAmount, formatAmount, amountToNumber } from './domain/money.js';
export { systemClock, ManualClock, formatIso, parseIso, type Clock, type Micros } from './domain/time.js';
export { pageLinks, pageRequest, DEFAULT_PAGE_SIZE, type Page } from './domain/pagination.js';
export { EVENT_TYPES, type EventEnvelope, type EventType } from './domain/events.js';
export { ID_PATTERN } from './domain/ids.js';
export type { CreateOrderInput } from './domain/order-input.js';
export { MAX_UPLOAD_BYTES, ALLOWED_UPLOAD_TYPES } from './domain/files.js';

export { sequenceIds, type IdSource, type ServiceDeps } from './services/deps.js';
export { resolveScope, requirePartner, requireMerchant, type Principal, type Scope } from './services/scope.js';
export { authenticate, ensurePartnerCredential, issueMerchantCredentials, type IssuedCredentials } from './services/credentials.js';
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
} from './services/merchants.js';
export { createDocumentStore, readDocument, type DocumentStore, type UploadedFile } from './services/documents.js';
export { createOrder, getOrder, patchOrder, attachOrderDocument, expireDueOrders, ORDER_DOCUMENT_TYPES, type CreateOrderResult } from './services/orders.js';
export { getCheckoutSession, completeCheckoutSession, type CheckoutResult, type CallbackFields, type CheckoutOutcome } from './services/checkout.js';
export { completeS2sPayment, processDueS2sCollections } from './services/s2s.js';
export { getPayment, listPayments, type PaymentFilters } from './services/payments.js';
export { createRefund, getRefund, listRefunds, completeRefund, processDueRefunds, type RefundFilters } from './services/refunds.js';
export { runSettlements, getSettlement, listSettlements } from './services/settlements.js';
export { createWebhookEndpoint, listWebhookEndpoints, deleteWebhookEndpoint, type WebhookEndpointView } from './services/webhook-endpoints.js';
export {
  claimIdempotencyKey,
  recordIdempotentOutcome,
  idempotencyScope,
  requestFingerprint,
  isValidIdempotencyKey,
  type IdempotencyClaim,
} from './services/idempotency.js';
export { hitRateLimit, RATE_LIMIT, RATE_WINDOW_SECONDS, type RateDecision } from './services/rate-limit.js';
export { loadSandboxClock, type SandboxClock } from './services/sandbox-clock.js';
export { merchantDetailsView } from './views/merchant.js';

export { createWorker, type Worker, type WorkerOptions, type TickReport } from './worker/worker.js';
