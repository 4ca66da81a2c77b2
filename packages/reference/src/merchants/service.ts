import { MerchantDocumentUploadDocumentType } from '@paygate/contract';
import type { Schemas } from '../core/contract.js';
import { encryptionKeyContext } from '../credentials/service.js';
import type { Db } from '../db/db.js';
import { settlementCurrencyFor } from '../core/currency.js';
import { DomainError, validationError } from '../core/errors.js';
import { merchantApprovedEvent } from '../webhooks/events.js';
import { newEncryptionKey } from '../core/ids.js';
import { cappedCount, keysetClauses, pageRequest, toPage, DEFAULT_PAGE_SIZE, type Page } from '../core/pagination.js';
import { Params } from '../db/params.js';
import { kycMachine, type KycStatus } from '../core/state-machines.js';
import { formatIso } from '../core/clock.js';
import { merchantNow } from '../core/merchant-clock.js';
import type { ServiceDeps } from '../core/deps.js';
import { storeDocument, type DocumentStore, type UploadedFile } from '../core/documents.js';
import { emitEvent } from '../webhooks/outbox.js';
import { insertInto, param, sql, VALUE } from '../db/insert.js';

// The merchant groups as the spec defines them; request validation enforces every field before a service runs.
export type CompanyDetails = Schemas['CompanyDetails'];
export type SettlementDetails = Schemas['SettlementDetails'];

/** A merchant as stored (the encryption key is deliberately not part of it). */
export interface MerchantRecord {
  id: string;
  partner_id: string;
  company_details: CompanyDetails;
  settlement_details: SettlementDetails;
  settlement_currency: string;
  kyc_status: KycStatus;
  kyc_reason: string | null;
  approved_at: string | null;
  invoice_file: string | null;
  created_at: string;
  updated_at: string;
}

export interface MerchantListItem {
  id: string;
  brand_name: string;
  kyc_status: KycStatus;
  created_date: string;
}

const COLUMNS = `id, partner_id, company_details, settlement_details, settlement_currency, kyc_status, kyc_reason, approved_at,
  invoice_file, created_at, updated_at`;

async function loadMerchant(db: Db, partnerId: string, merchantId: string, forUpdate = false): Promise<MerchantRecord> {
  const { rows } = await db.query<MerchantRecord>(
    `SELECT ${COLUMNS} FROM merchants WHERE id = $1 AND partner_id = $2${forUpdate ? ' FOR UPDATE' : ''}`,
    [merchantId, partnerId],
  );
  const row = rows[0];
  if (!row) throw new DomainError('ERR_MERCHANT_404', 'Merchant not found');
  return row;
}

/** A new PENDING merchant: the merchants row's one column list (D460, "An INSERT is built from its table's column list"). */
const INSERT_MERCHANT = insertInto(
  'merchants',
  {
    id: VALUE,
    partner_id: VALUE,
    company_details: VALUE,
    settlement_details: VALUE,
    settlement_currency: VALUE,
    kyc_status: sql("'PENDING'"),
    encryption_key_sealed: VALUE,
    created_at: VALUE,
    updated_at: param('created_at'),
  },
  { tail: `RETURNING ${COLUMNS}` },
);

export type CreateMerchantInput = Schemas['CreateMerchantRequest'];

/** Create a merchant of `partnerId` with kyc_status PENDING; settlement_currency derives from bank_country. */
export async function createMerchant(deps: ServiceDeps, partnerId: string, input: CreateMerchantInput): Promise<MerchantRecord> {
  return deps.db.transaction(async (tx) => {
    const id = await deps.ids.next(tx, 'merchant');
    const now = formatIso(deps.clock.now());
    const { rows } = await tx.query<MerchantRecord>(
      INSERT_MERCHANT.text,
      INSERT_MERCHANT.values({
        id,
        partner_id: partnerId,
        company_details: JSON.stringify(input.company_details),
        settlement_details: JSON.stringify(input.settlement_details),
        settlement_currency: settlementCurrencyFor(input.settlement_details.bank_country),
        encryption_key_sealed: deps.secrets.seal(newEncryptionKey(), encryptionKeyContext(id)),
        created_at: now,
      }),
    );
    return rows[0] as MerchantRecord;
  });
}

/** One merchant of the partner; others => 404 ERR_MERCHANT_404. */
export function getMerchant(deps: ServiceDeps, partnerId: string, merchantId: string): Promise<MerchantRecord> {
  return loadMerchant(deps.db, partnerId, merchantId);
}

/** Page through the partner's merchants, newest first. */
export async function listMerchants(
  deps: ServiceDeps,
  partnerId: string,
  query: { page?: number | string; page_size?: number | string; cursor?: string } = {},
): Promise<Page<MerchantListItem>> {
  const req = pageRequest(query.page, query.page_size, DEFAULT_PAGE_SIZE.merchants, query.cursor);
  const p = new Params();
  const fromWhere = `FROM merchants WHERE partner_id = ${p.add(partnerId)}`;
  const countValues = [...p.values];
  const keyset = keysetClauses(req, 'created_at', 'id', p);
  const [count, list] = await Promise.all([
    cappedCount(deps.db, fromWhere, countValues, 'created_at', 'id'),
    deps.db.query<MerchantListItem>(
      `SELECT id, company_details->>'brand_name' AS brand_name, kyc_status, created_at AS created_date
       ${fromWhere}${keyset.where ? ` AND ${keyset.where}` : ''} ${keyset.tail}`,
      p.values,
    ),
  ]);
  return toPage(
    req,
    count,
    list.rows,
    (r) => ({ at: r.created_date, id: r.id }),
    (r) => r,
  );
}

/** Any subset of each group, at least one field (the schema's minProperties). */
export type PatchMerchantInput = Schemas['UpdateMerchantRequest'];

/** Merge the given fields into each group; returns the top-level groups updated. */
export async function patchMerchant(
  deps: ServiceDeps,
  partnerId: string,
  merchantId: string,
  patch: PatchMerchantInput,
): Promise<{ merchant_id: string; updated_fields: ('company_details' | 'settlement_details')[] }> {
  return deps.db.transaction(async (tx) => {
    const current = await loadMerchant(tx, partnerId, merchantId, true);
    const updated: ('company_details' | 'settlement_details')[] = [];
    const company = { ...current.company_details, ...(patch.company_details ?? {}) };
    const settlement = { ...current.settlement_details, ...(patch.settlement_details ?? {}) };
    if (patch.company_details !== undefined) updated.push('company_details');
    if (patch.settlement_details !== undefined) updated.push('settlement_details');
    await tx.query(
      `UPDATE merchants SET company_details = $2, settlement_details = $3, settlement_currency = $4, updated_at = $5 WHERE id = $1`,
      [
        merchantId,
        JSON.stringify(company),
        JSON.stringify(settlement),
        settlementCurrencyFor(settlement.bank_country),
        formatIso(await merchantNow(deps.clock, tx, merchantId)),
      ],
    );
    return { merchant_id: merchantId, updated_fields: updated };
  });
}

/**
 * Move KYC: PENDING -> APPROVED | REJECTED, REJECTED -> APPROVED (422 ERR_MERCHANT_422 otherwise).
 * Approval emits MERCHANT_APPROVED in the same transaction.
 */
export async function setKycStatus(
  deps: ServiceDeps,
  partnerId: string,
  merchantId: string,
  input: { status: KycStatus; reason?: string | undefined },
): Promise<MerchantRecord> {
  if (!kycMachine.states.includes(input.status)) throw validationError('status', `must be one of ${kycMachine.states.join(', ')}`);
  return deps.db.transaction(async (tx) => {
    const current = await loadMerchant(tx, partnerId, merchantId, true);
    kycMachine.assertTransition(current.kyc_status, input.status);
    const at = await merchantNow(deps.clock, tx, merchantId);
    const now = formatIso(at);
    const { rows } = await tx.query<MerchantRecord>(
      `UPDATE merchants SET kyc_status = $2, kyc_reason = $3, approved_at = CASE WHEN $2 = 'APPROVED' THEN $4::timestamptz ELSE approved_at END,
              updated_at = $4
       WHERE id = $1 RETURNING ${COLUMNS}`,
      [merchantId, input.status, input.reason ?? null, now],
    );
    if (input.status === 'APPROVED') {
      await emitEvent(tx, at, { partnerId, merchantId }, (seq) =>
        merchantApprovedEvent(seq, at, {
          merchantId,
          legalName: current.company_details.legal_name,
          tradeName: current.company_details.brand_name,
        }),
      );
    }
    return rows[0] as MerchantRecord;
  });
}

export const MERCHANT_DOCUMENT_TYPES = MerchantDocumentUploadDocumentType;

/** Store a merchant document; INVOICE also sets the merchant's invoice_file URL. */
export async function uploadMerchantDocument(
  deps: ServiceDeps,
  store: DocumentStore,
  partnerId: string,
  merchantId: string,
  input: { documentType: string; file: UploadedFile },
): Promise<{ detail: string }> {
  if (!(MERCHANT_DOCUMENT_TYPES as readonly string[]).includes(input.documentType)) {
    throw validationError('document_type', `must be one of ${MERCHANT_DOCUMENT_TYPES.join(', ')}`);
  }
  return deps.db.transaction(async (tx) => {
    await loadMerchant(tx, partnerId, merchantId, true);
    const at = await merchantNow(deps.clock, tx, merchantId);
    const doc = await storeDocument(tx, store, at, { merchantId, documentType: input.documentType }, input.file);
    if (input.documentType === 'INVOICE') {
      await tx.query('UPDATE merchants SET invoice_file = $2, updated_at = $3 WHERE id = $1', [merchantId, doc.url, formatIso(at)]);
    } else {
      await tx.query('UPDATE merchants SET updated_at = $2 WHERE id = $1', [merchantId, formatIso(at)]);
    }
    return { detail: `${input.documentType} document uploaded successfully` };
  });
}
