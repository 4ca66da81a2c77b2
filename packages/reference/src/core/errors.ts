import type { ErrorEnvelope } from '@paygate/contract';

/** Error codes of the Paygate API (brief, "Error codes") with their HTTP status. */
export const ERROR_STATUS = {
  ERR_VALIDATION_400: 400,
  ERR_AUTH_000: 401,
  ERR_AUTH_403: 403,
  ERR_REQUEST_404: 404,
  ERR_REQUEST_405: 405,
  ERR_REQUEST_413: 413,
  ERR_REQUEST_415: 415,
  ERR_MERCHANT_404: 404,
  ERR_MERCHANT_422: 422,
  ERR_ORDER_404: 404,
  ERR_ORDER_409: 409,
  ERR_ORDER_422: 422,
  ERR_PAYMENT_404: 404,
  ERR_REFUND_404: 404,
  ERR_REFUND_422: 422,
  ERR_SETTLEMENT_404: 404,
  ERR_WEBHOOK_404: 404,
  ERR_IDEMPOTENCY_409: 409,
  ERR_IDEMPOTENCY_422: 422,
  ERR_RATE_429: 429,
  ERR_INTERNAL_500: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** Field name -> human-readable message (the envelope's `error.details`). */
export type ErrorDetails = Record<string, string>;

/**
 * A business-rule failure. `status` is derived from `code`; the HTTP layer renders
 * `{ success: false, error: { code, message, details } }` with that status.
 */
export class DomainError extends Error {
  override readonly name = 'DomainError';
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetails | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetails) {
    super(message);
    this.code = code;
    this.status = ERROR_STATUS[code];
    this.details = details;
  }

  toJSON(): ErrorEnvelope<ErrorCode> {
    return { success: false, error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

export function isDomainError(err: unknown): err is DomainError {
  return err instanceof DomainError;
}

/** Shorthand for a 400 with one field detail. */
export function validationError(field: string, message: string): DomainError {
  return new DomainError('ERR_VALIDATION_400', 'Request validation failed', { [field]: message });
}
