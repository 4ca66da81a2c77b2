import type { Handlers } from '@paygate/server';
import { issueMerchantCredentials, revokePreviousCredentials } from '../credentials/service.js';
import { createMerchant, getMerchant, listMerchants, patchMerchant, uploadMerchantDocument } from './service.js';
import { requirePartner } from '../core/scope.js';
import { merchantDetailsView } from './view.js';
import { ok, principalOf, toUpload, withLinks, type Principal, type HandlerServices } from '../http/handler-kit.js';

type MerchantOps =
  | 'listMerchants'
  | 'createMerchant'
  | 'getMerchant'
  | 'updateMerchant'
  | 'createMerchantCredentials'
  | 'revokePreviousMerchantCredentials'
  | 'uploadMerchantDocument';

/** Partner API: merchants (partner credentials only; other partners' merchants are 404). */
export function merchantHandlers(rt: HandlerServices): Pick<Handlers<Principal>, MerchantOps> {
  const partnerOf = (ctx: Parameters<Handlers<Principal>['getMerchant']>[1]) => requirePartner(principalOf(ctx));
  return {
    async listMerchants(req, ctx) {
      const partnerId = await partnerOf(ctx);
      const page = await listMerchants(rt.deps, partnerId, req.query);
      return { status: 200, body: ok('Merchants fetched successfully', withLinks(rt, ctx, req.query, page)) };
    },
    async createMerchant(req, ctx) {
      const partnerId = await partnerOf(ctx);
      const merchant = await createMerchant(rt.deps, partnerId, req.body);
      return { status: 201, body: ok('Merchant created successfully', merchantDetailsView(merchant)) };
    },
    async getMerchant(req, ctx) {
      const partnerId = await partnerOf(ctx);
      const merchant = await getMerchant(rt.deps, partnerId, req.params.merchant_id);
      return { status: 200, body: ok('Merchant fetched successfully', merchantDetailsView(merchant)) };
    },
    async updateMerchant(req, ctx) {
      const partnerId = await partnerOf(ctx);
      const result = await patchMerchant(rt.deps, partnerId, req.params.merchant_id, req.body);
      return { status: 200, body: ok('Merchant updated successfully', result) };
    },
    async createMerchantCredentials(req, ctx) {
      const partnerId = await partnerOf(ctx);
      const overlap = req.body?.overlap_seconds;
      const issued = await issueMerchantCredentials(rt.deps, partnerId, req.params.merchant_id, {
        live: !rt.config.sandbox,
        ...(overlap !== undefined ? { overlapSeconds: overlap } : {}),
      });
      rt.credentials.flush();
      return {
        status: 201,
        body: ok('Credentials issued; store them now, they are not shown again', {
          client_id: issued.client_id,
          client_secret: issued.client_secret,
          encryption_key: issued.encryption_key,
          previous_expires_at: issued.previous_expires_at,
        }),
        headers: { 'Cache-Control': 'no-store' },
      };
    },
    async revokePreviousMerchantCredentials(req, ctx) {
      const partnerId = await partnerOf(ctx);
      const result = await revokePreviousCredentials(rt.deps, partnerId, req.params.merchant_id);
      rt.credentials.flush();
      return { status: 200, body: ok('Previous credentials revoked', result) };
    },
    async uploadMerchantDocument(req, ctx) {
      const partnerId = await partnerOf(ctx);
      const result = await uploadMerchantDocument(rt.deps, rt.documents, partnerId, req.params.merchant_id, {
        documentType: req.body.document_type,
        file: toUpload(req.body.file),
      });
      return { status: 200, body: ok('Document uploaded successfully', result) };
    },
  };
}
