import { DomainError, VALIDATION_MESSAGE } from './errors.js';

/** Upload limits (brief "Uploads"). */
export const MAX_UPLOAD_BYTES = 5 * 1024 * 1024;
export const ALLOWED_UPLOAD_TYPES = ['application/pdf', 'image/png', 'image/jpeg'] as const;
export type UploadContentType = (typeof ALLOWED_UPLOAD_TYPES)[number];

export const FILE_EXTENSION: Record<UploadContentType, string> = {
  'application/pdf': '.pdf',
  'image/png': '.png',
  'image/jpeg': '.jpg',
};

/** Content type from magic bytes: `%PDF-`, PNG signature, JPEG SOI marker. */
export function sniffContentType(bytes: Uint8Array): UploadContentType | undefined {
  const starts = (sig: readonly number[]) => sig.every((b, i) => bytes[i] === b);
  if (starts([0x25, 0x50, 0x44, 0x46, 0x2d])) return 'application/pdf';
  if (starts([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'image/png';
  if (starts([0xff, 0xd8, 0xff])) return 'image/jpeg';
  return undefined;
}

/**
 * Check an uploaded file: size <= 5 MiB (413 ERR_REQUEST_413), declared type allowed and matching the magic bytes
 * (415 ERR_REQUEST_415). Returns the verified content type.
 */
export function checkUpload(bytes: Uint8Array, declaredType: string | undefined): UploadContentType {
  if (bytes.byteLength > MAX_UPLOAD_BYTES) {
    throw new DomainError('ERR_REQUEST_413', 'File is too large', { file: `must be at most ${MAX_UPLOAD_BYTES} bytes (5 MiB)` });
  }
  if (bytes.byteLength === 0) {
    throw new DomainError('ERR_VALIDATION_400', VALIDATION_MESSAGE, { file: 'must not be empty' });
  }
  const declared = declaredType?.split(';')[0]?.trim().toLowerCase();
  const sniffed = sniffContentType(bytes);
  const allowed = ALLOWED_UPLOAD_TYPES.join(', ');
  if (
    declared !== undefined &&
    declared !== '' &&
    declared !== 'application/octet-stream' &&
    !(ALLOWED_UPLOAD_TYPES as readonly string[]).includes(declared)
  ) {
    throw new DomainError('ERR_REQUEST_415', 'Unsupported file type', { file: `type ${declared} is not allowed; use one of ${allowed}` });
  }
  if (!sniffed) {
    throw new DomainError('ERR_REQUEST_415', 'Unsupported file type', { file: `content is not one of ${allowed}` });
  }
  if (declared && declared !== 'application/octet-stream' && declared !== sniffed) {
    throw new DomainError('ERR_REQUEST_415', 'Unsupported file type', { file: `declared ${declared} but the content is ${sniffed}` });
  }
  return sniffed;
}
