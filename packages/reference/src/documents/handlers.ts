import type { Handlers } from '@paygate/server';
import { ALLOWED_UPLOAD_TYPES, type UploadContentType } from '../core/files.js';
import { readDocument } from '../core/documents.js';
import { principalOf, type HandlerServices, type Principal } from '../http/handler-kit.js';

function isUploadContentType(value: string): value is UploadContentType {
  return (ALLOWED_UPLOAD_TYPES as readonly string[]).includes(value);
}

/**
 * `GET /files/{document_id}`: the one URL of an uploaded document (core/documents `urlFor`), only to its owner (the
 * merchant's credentials, or its partner's); everyone else gets 404 as if it did not exist.
 */
export function documentHandlers(rt: HandlerServices): Pick<Handlers<Principal>, 'downloadDocument'> {
  return {
    async downloadDocument(req, ctx) {
      const principal = principalOf(ctx);
      const owner = { partnerId: principal.partnerId, merchantId: principal.kind === 'merchant' ? principal.merchantId : undefined };
      const doc = await readDocument(rt.db, rt.documents, req.params.document_id, owner);
      // uploads are sniffed to these three types when stored (core/files.ts); anything else is a corrupt row
      if (!isUploadContentType(doc.contentType))
        throw new Error(`document ${req.params.document_id} has an unexpected content type ${doc.contentType}`);
      // never rendered as a page, never cached: the API's no-store, plus a CSP that sandboxes it if it ever is
      ctx.res.set({ 'Cache-Control': 'private, no-store', 'Content-Security-Policy': "default-src 'none'; sandbox" });
      return { status: 200, contentType: doc.contentType, body: doc.bytes, headers: { 'Content-Disposition': 'attachment' } };
    },
  };
}
