import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestDb, testTargets, type TestDb } from '../testing/test-db.js';
import { companyDetails, settlementDetails, testDeps } from '../testing/fixtures.js';
import { merchantDetailsView } from './view.js';
import { authenticate, ensurePartnerCredential, issueMerchantCredentials } from '../credentials/service.js';
import { merchantEncryptionKey } from '../credentials/service.js';
import { createMerchant, getMerchant, listMerchants, patchMerchant, setKycStatus, uploadMerchantDocument } from './service.js';
import { createDocumentStore, readDocument } from '../core/documents.js';
import { resolveScope, requirePartner } from '../core/scope.js';

describe.each(testTargets())('merchants and credentials on %s', (target) => {
  let t: TestDb;
  let deps: ReturnType<typeof testDeps>;
  beforeAll(async () => {
    t = await openTestDb(target);
    deps = testDeps(t.db);
    await ensurePartnerCredential(deps, { partnerId: 'p1', clientId: 'pk_p1', clientSecret: 'partner-one-secret-0123456789' });
    await ensurePartnerCredential(deps, { partnerId: 'p2', clientId: 'pk_p2', clientSecret: 'partner-two-secret-0123456789' });
  });
  afterAll(async () => t?.dispose());

  it('creates, reads, lists and patches merchants within the partner', async () => {
    const m = await createMerchant(deps, 'p1', { settlement_details: settlementDetails('US'), company_details: companyDetails('Zen') });
    expect(m.id).toMatch(/^\d{10}$/);
    expect(m.kyc_status).toBe('PENDING');
    expect(m.settlement_currency).toBe('USD');
    const view = merchantDetailsView(m);
    expect(view.settlement_details.settlement_currency).toBe('USD');
    expect(view.invoice_file).toBeNull();
    expect(view.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
    expect(view).not.toHaveProperty('encryption_key');

    await expect(getMerchant(deps, 'p2', m.id)).rejects.toMatchObject({ code: 'ERR_MERCHANT_404' });
    const page = await listMerchants(deps, 'p1', { page_size: 250 });
    expect(page.results.find((r) => r.id === m.id)).toEqual({
      id: m.id,
      brand_name: 'Zen',
      kyc_status: 'PENDING',
      created_date: m.created_at,
    });
    expect((await listMerchants(deps, 'p2')).results.find((r) => r.id === m.id)).toBeUndefined();

    deps.clock.advance(5);
    const patched = await patchMerchant(deps, 'p1', m.id, { settlement_details: { bank_country: 'GB' } });
    expect(patched).toEqual({ merchant_id: m.id, updated_fields: ['settlement_details'] });
    const after = await getMerchant(deps, 'p1', m.id);
    expect(after.settlement_currency).toBe('GBP');
    expect(after.settlement_details.bank_name).toBe('HDFC Bank');
    expect(after.updated_at > m.updated_at).toBe(true);
  });

  it('KYC moves, MERCHANT_APPROVED in the outbox', async () => {
    const m = await createMerchant(deps, 'p1', { settlement_details: settlementDetails(), company_details: companyDetails('Kyc Co') });
    await setKycStatus(deps, 'p1', m.id, { status: 'REJECTED', reason: 'blurry proof' });
    await expect(setKycStatus(deps, 'p1', m.id, { status: 'PENDING' })).rejects.toMatchObject({ code: 'ERR_MERCHANT_422', status: 422 });
    const approved = await setKycStatus(deps, 'p1', m.id, { status: 'APPROVED' });
    expect(approved.kyc_status).toBe('APPROVED');
    await expect(setKycStatus(deps, 'p1', m.id, { status: 'REJECTED' })).rejects.toMatchObject({ code: 'ERR_MERCHANT_422' });
    const { rows } = await t.db.query<{
      payload: { event_type: string; event_time: string; version: string; sequence_number: string; data: unknown };
    }>(`SELECT payload FROM events WHERE merchant_id = $1`, [m.id]);
    expect(rows).toHaveLength(1);
    const ev = rows[0]!.payload;
    expect(ev.event_type).toBe('MERCHANT_APPROVED');
    expect(ev.version).toBe('1.0');
    expect(ev.event_time).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(ev.sequence_number).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(ev.data).toEqual({
      approved_at: approved.approved_at,
      merchant_id: m.id,
      legal_name: 'Kyc Co Exports Private Limited',
      trade_name: 'Kyc Co',
    });
  });

  it('authenticates partners, issues and rotates merchant credentials', async () => {
    await expect(authenticate(t.db, undefined, 'x')).rejects.toMatchObject({
      code: 'ERR_AUTH_000',
      message: 'Missing credentials',
      status: 401,
    });
    await expect(authenticate(t.db, 'pk_p1', 'wrong-secret-wrong-secret')).rejects.toMatchObject({
      code: 'ERR_AUTH_000',
      message: 'Invalid credentials',
    });
    await expect(authenticate(t.db, 'nobody', 'partner-one-secret-0123456789')).rejects.toMatchObject({ code: 'ERR_AUTH_000' });
    const partner = await authenticate(t.db, 'pk_p1', 'partner-one-secret-0123456789');
    expect(partner).toEqual({ kind: 'partner', clientId: 'pk_p1', partnerId: 'p1' });

    const m = await createMerchant(deps, 'p1', { settlement_details: settlementDetails(), company_details: companyDetails() });
    const first = await issueMerchantCredentials(deps, 'p1', m.id);
    expect(first.client_id).toMatch(/^ck_test_/);
    expect(first.client_secret).toMatch(/^cs_/);
    expect(first.encryption_key).toMatch(/^ek_/);
    const merchant = await authenticate(t.db, first.client_id, first.client_secret);
    expect(merchant).toEqual({ kind: 'merchant', clientId: first.client_id, partnerId: 'p1', merchantId: m.id });
    expect(() => requirePartner(merchant)).toThrow(expect.objectContaining({ code: 'ERR_AUTH_403', status: 403 }));

    // rotation with overlap 0 revokes at once (the overlap window is tested in credentials/rotation.test.ts)
    const second = await issueMerchantCredentials(deps, 'p1', m.id, { overlapSeconds: 0 });
    const now = deps.clock.now();
    await expect(authenticate(t.db, first.client_id, first.client_secret, now)).rejects.toMatchObject({ code: 'ERR_AUTH_000' });
    await expect(authenticate(t.db, second.client_id, second.client_secret, now)).resolves.toMatchObject({ merchantId: m.id });
    const { rows } = await t.db.query<{ row: string; encryption_key_sealed: string; secret_hash: Uint8Array }>(
      `SELECT to_jsonb(m)::text AS row, m.encryption_key_sealed, c.secret_hash FROM merchants m
       JOIN credentials c ON c.merchant_id = m.id AND c.client_id = $2 WHERE m.id = $1`,
      [m.id, second.client_id],
    );
    // the encryption key is sealed under the master key, bound to its merchant; no plaintext copy
    expect(rows[0]!.row).not.toContain(second.encryption_key);
    expect(rows[0]!.encryption_key_sealed).not.toContain(second.encryption_key);
    expect(deps.secrets.open(rows[0]!.encryption_key_sealed, `merchant:${m.id}:encryption_key`)).toBe(second.encryption_key);
    expect(() => deps.secrets.open(rows[0]!.encryption_key_sealed, 'merchant:other:encryption_key')).toThrow();
    await expect(t.db.transaction((tx) => merchantEncryptionKey(tx, deps.secrets, m.id))).resolves.toBe(second.encryption_key);
    expect(Buffer.from(rows[0]!.secret_hash).toString('utf8')).not.toContain('cs_'); // only the hash is stored
    await expect(issueMerchantCredentials(deps, 'p2', m.id)).rejects.toMatchObject({ code: 'ERR_MERCHANT_404' });

    // X-Merchant-ID rules
    await expect(resolveScope(t.db, merchant, '999')).rejects.toMatchObject({ code: 'ERR_AUTH_403' });
    await expect(resolveScope(t.db, merchant, m.id)).resolves.toEqual({ partnerId: 'p1', merchantId: m.id });
    await expect(resolveScope(t.db, { kind: 'partner', clientId: 'pk_p2', partnerId: 'p2' }, m.id)).rejects.toMatchObject({
      code: 'ERR_MERCHANT_404',
    });
    await expect(resolveScope(t.db, partner, undefined)).resolves.toEqual({ partnerId: 'p1', merchantId: undefined });
  });

  it('stores uploaded documents and sets invoice_file for INVOICE', async () => {
    const store = createDocumentStore('memory://', 'https://gw.example');
    const m = await createMerchant(deps, 'p1', { settlement_details: settlementDetails(), company_details: companyDetails() });
    const pdf = new TextEncoder().encode('%PDF-1.4 test invoice');
    await expect(
      uploadMerchantDocument(deps, store, 'p1', m.id, {
        documentType: 'INVOICE',
        file: { bytes: pdf, contentType: 'application/pdf', originalName: 'inv.pdf' },
      }),
    ).resolves.toEqual({ detail: 'INVOICE document uploaded successfully' });
    const after = await getMerchant(deps, 'p1', m.id);
    expect(after.invoice_file).toMatch(/^https:\/\/gw\.example\/files\/doc_[A-Za-z0-9_-]{32}$/);
    const docId = after.invoice_file!.split('/').pop()!;
    const file = await readDocument(t.db, store, docId);
    expect(file.contentType).toBe('application/pdf');
    expect(Buffer.from(file.bytes).equals(Buffer.from(pdf))).toBe(true);
    await expect(
      uploadMerchantDocument(deps, store, 'p1', m.id, {
        documentType: 'INVOICE',
        file: { bytes: new TextEncoder().encode('MZ...'), contentType: 'application/pdf', originalName: 'x' },
      }),
    ).rejects.toMatchObject({ code: 'ERR_REQUEST_415' });
    await expect(
      uploadMerchantDocument(deps, store, 'p1', m.id, {
        documentType: 'SELFIE',
        file: { bytes: pdf, contentType: 'application/pdf', originalName: 'x' },
      }),
    ).rejects.toMatchObject({ code: 'ERR_VALIDATION_400' });
  });
});
