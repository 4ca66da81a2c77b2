import { ERROR_STATUS, type ErrorCode, type ErrorEnvelope } from '@paygate/contract';
import { VALIDATION_MESSAGE } from '@paygate/server';

/** The one message of every ERR_VALIDATION_400 (the scaffold's), for handlers' own validation errors. */
export { VALIDATION_MESSAGE };

/** Error codes of the API and their HTTP status: generated from the spec's error catalogue, never copied here. */
export { ERROR_STATUS, type ErrorCode };

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
  return new DomainError('ERR_VALIDATION_400', VALIDATION_MESSAGE, { [field]: message });
}
