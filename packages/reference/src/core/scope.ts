import type { Db } from '../db/db.js';
import { DomainError, validationError } from './errors.js';
import type { Params } from '../db/params.js';

/** Who is calling, from authenticated credentials. */
export type Principal =
  | { kind: 'partner'; clientId: string; partnerId: string }
  | { kind: 'merchant'; clientId: string; partnerId: string; merchantId: string };

/** Which merchants a request may see: every merchant of the partner, or exactly one. */
export interface Scope {
  partnerId: string;
  merchantId: string | undefined;
}

/** The scope a request claims, before the database is asked whether a partner owns the merchant it names. */
export interface ClaimedScope {
  scope: Scope;
  /** A partner named a merchant in `X-Merchant-ID`: the statement that reads it must check `partner_id` (else {@link notPartnersMerchant}). */
  ownerUnchecked: boolean;
}

/**
 * `X-Merchant-ID` as far as it can be checked without the database: merchants may send it only with their own id
 * (else 403 ERR_AUTH_403); a partner's is taken as claimed, for the caller to verify in the statement that reads the
 * merchant anyway (one round trip instead of two, D67), or through {@link resolveScope}.
 */
export function claimScope(principal: Principal, xMerchantId?: string | undefined): ClaimedScope {
  const header = xMerchantId === '' ? undefined : xMerchantId;
  if (principal.kind === 'merchant') {
    if (header !== undefined && header !== principal.merchantId) {
      throw new DomainError('ERR_AUTH_403', 'X-Merchant-ID does not match the merchant of these credentials', {
        'x-merchant-id': 'must equal the merchant id of the credentials',
      });
    }
    return { scope: { partnerId: principal.partnerId, merchantId: principal.merchantId }, ownerUnchecked: false };
  }
  return { scope: { partnerId: principal.partnerId, merchantId: header }, ownerUnchecked: header !== undefined };
}

/** A partner's `X-Merchant-ID` names a merchant it does not own (or none): 404 ERR_MERCHANT_404. */
export function notPartnersMerchant(): DomainError {
  return new DomainError('ERR_MERCHANT_404', 'Merchant not found', { 'x-merchant-id': 'no such merchant' });
}

/**
 * Apply `X-Merchant-ID`: partners may narrow to one of their merchants (others => 404 ERR_MERCHANT_404);
 * merchants may send it only with their own id (else 403 ERR_AUTH_403).
 */
export async function resolveScope(db: Db, principal: Principal, xMerchantId?: string | undefined): Promise<Scope> {
  const { scope, ownerUnchecked } = claimScope(principal, xMerchantId);
  if (!ownerUnchecked) return scope;
  const { rows } = await db.query('SELECT 1 FROM merchants WHERE id = $1 AND partner_id = $2', [scope.merchantId, scope.partnerId]);
  if (rows.length === 0) throw notPartnersMerchant();
  return scope;
}

/** Partner-only operations (merchant CRUD, credentials, KYC): merchant credentials => 403 ERR_AUTH_403. */
export function requirePartner(principal: Principal): string {
  if (principal.kind !== 'partner') {
    throw new DomainError('ERR_AUTH_403', 'This operation requires partner credentials');
  }
  return principal.partnerId;
}

/** Operations acting for one merchant (order creation): partners must name it in X-Merchant-ID. */
export function requireMerchant(scope: Scope): string {
  // details name a header in lower case, like the request validator's (D41 one validation message, lower-case header names)
  if (scope.merchantId === undefined) throw validationError('x-merchant-id', 'is required with partner credentials');
  return scope.merchantId;
}

/** SQL condition limiting `column` (a merchant id column) to the scope. */
export function scopeCondition(scope: Scope, column: string, p: Params): string {
  if (scope.merchantId !== undefined) return `${column} = ${p.add(scope.merchantId)}`;
  return `${column} IN (SELECT id FROM merchants WHERE partner_id = ${p.add(scope.partnerId)})`;
}

/**
 * SQL condition limiting a table that carries both `merchant_id` and `partner_id` (payments, refunds, settlements:
 * migration 012) to the scope, on the column its list indexes start with (D108 lists page by keyset over tenant indexes).
 */
export function tenantCondition(scope: Scope, alias: string, p: Params): string {
  if (scope.merchantId !== undefined) return `${alias}.merchant_id = ${p.add(scope.merchantId)}`;
  return `${alias}.partner_id = ${p.add(scope.partnerId)}`;
}
