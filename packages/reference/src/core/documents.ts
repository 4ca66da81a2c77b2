import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Db } from '../db/db.js';
import { DomainError } from './errors.js';
import { checkUpload, FILE_EXTENSION, type UploadContentType } from './files.js';
import { ID_PATTERN, newDocumentId } from './ids.js';
import { formatIso, type Micros } from './clock.js';
import { insertInto, VALUE } from '../db/insert.js';

/** An uploaded file as the HTTP layer hands it over (multer memory storage). */
export interface UploadedFile {
  bytes: Uint8Array;
  /** Declared content type of the part. */
  contentType: string | undefined;
  originalName: string | undefined;
}

/**
 * Where document bytes live: `<dataDir>/documents/<doc id><ext>`. Their one URL is `<publicBaseUrl>/files/<doc id>`
 * (as in the spec examples), served by the HTTP layer to the owner only.
 */
export interface DocumentStore {
  readonly dir: string;
  urlFor(documentId: string): string;
}

/** Store under the data dir; for `memory://` databases a private temporary directory is used. */
export function createDocumentStore(dataDir: string, publicBaseUrl: string): DocumentStore {
  const dir = dataDir.startsWith('memory://')
    ? path.join(tmpdir(), `paygate-documents-${process.pid}-${Math.random().toString(36).slice(2)}`)
    : path.resolve(dataDir, 'documents');
  const base = publicBaseUrl.replace(/\/+$/, '');
  return { dir, urlFor: (id) => `${base}/files/${id}` };
}

export interface StoredDocument {
  id: string;
  url: string;
  contentType: UploadContentType;
  size: number;
}

/** An uploaded document: the documents row's one column list (D460, "An INSERT is built from its table's column list"). */
const INSERT_DOCUMENT = insertInto('documents', {
  id: VALUE,
  merchant_id: VALUE,
  order_id: VALUE,
  owner_kind: VALUE,
  document_type: VALUE,
  identifier: VALUE,
  storage_path: VALUE,
  original_name: VALUE,
  content_type: VALUE,
  size_bytes: VALUE,
  sha256: VALUE,
  created_at: VALUE,
});

/**
 * Check the file (size, type by magic bytes), write it under an unguessable name and record it in `documents`
 * inside `tx`. The file is written before the row; a rolled-back transaction leaves an orphan file only.
 */
export async function storeDocument(
  tx: Db,
  store: DocumentStore,
  at: Micros,
  owner: { merchantId: string; orderId?: string; documentType: string; identifier?: string },
  file: UploadedFile,
): Promise<StoredDocument> {
  const contentType = checkUpload(file.bytes, file.contentType);
  const id = newDocumentId();
  const relative = `${id}${FILE_EXTENSION[contentType]}`;
  await mkdir(store.dir, { recursive: true, mode: 0o700 });
  await writeFile(path.join(store.dir, relative), file.bytes, { mode: 0o600, flag: 'wx' });
  try {
    await tx.query(
      INSERT_DOCUMENT.text,
      INSERT_DOCUMENT.values({
        id,
        merchant_id: owner.merchantId,
        order_id: owner.orderId ?? null,
        owner_kind: owner.orderId ? 'order' : 'merchant',
        document_type: owner.documentType,
        identifier: owner.identifier ?? null,
        storage_path: relative,
        original_name: file.originalName?.slice(0, 255) ?? null,
        content_type: contentType,
        size_bytes: file.bytes.byteLength,
        sha256: createHash('sha256').update(file.bytes).digest('hex'),
        created_at: formatIso(at),
      }),
    );
  } catch (err) {
    await rm(path.join(store.dir, relative), { force: true });
    throw err;
  }
  return { id, url: store.urlFor(id), contentType, size: file.bytes.byteLength };
}

/**
 * Read a stored document by its (unguessable) id, for serving the URL. Unknown => 404 ERR_REQUEST_404. With `owner`,
 * only a document of that partner (and, when given, that merchant) is returned; others are 404 as well.
 */
export async function readDocument(
  db: Db,
  store: DocumentStore,
  id: string,
  owner?: { partnerId: string; merchantId?: string | undefined },
): Promise<{ contentType: string; bytes: Buffer; merchantId: string; originalName: string | null }> {
  if (!ID_PATTERN.document.test(id)) throw new DomainError('ERR_REQUEST_404', 'Document not found');
  const { rows } = await db.query<{
    storage_path: string;
    content_type: string;
    merchant_id: string;
    partner_id: string;
    original_name: string | null;
  }>(
    `SELECT d.storage_path, d.content_type, d.merchant_id, m.partner_id, d.original_name
     FROM documents d JOIN merchants m ON m.id = d.merchant_id WHERE d.id = $1`,
    [id],
  );
  const row = rows[0];
  if (!row) throw new DomainError('ERR_REQUEST_404', 'Document not found');
  if (owner && (row.partner_id !== owner.partnerId || (owner.merchantId !== undefined && row.merchant_id !== owner.merchantId))) {
    throw new DomainError('ERR_REQUEST_404', 'Document not found');
  }
  return {
    contentType: row.content_type,
    bytes: await readFile(path.join(store.dir, row.storage_path)),
    merchantId: row.merchant_id,
    originalName: row.original_name,
  };
}
