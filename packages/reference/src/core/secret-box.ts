import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Encryption at rest for secrets the gateway must be able to use again, so they cannot be hashed like client
 * secrets: a merchant's callback encryption key (it signs the return-URL hash), a webhook endpoint's signing
 * secret, and stored Idempotency-Key responses (which can carry secrets shown once).
 *
 * AES-256-GCM with a random 96-bit nonce per value; sealed text is `v1.<nonce>.<tag>.<ciphertext>` (base64url),
 * and `context` (for example `merchant:10000001:encryption_key`) is bound as additional authenticated data so a
 * sealed value copied into another row does not open.
 */
export interface SecretBox {
  seal(plaintext: string, context: string): string;
  open(sealed: string, context: string): string;
}

const VERSION = 'v1';
export const MASTER_KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

/** How to make a master key (part of every master-key error message). */
export const MASTER_KEY_HINT = `Generate one with: node -e "console.log(require('crypto').randomBytes(32).toString('base64'))"`;

/**
 * Parse a 32-byte master key written as base64, base64url or hex. Anything else (other characters, another length)
 * is refused with a message saying how to generate one; the message never echoes the value.
 */
export function parseMasterKey(text: string): Buffer {
  const trimmed = text.trim();
  let key: Buffer;
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) key = Buffer.from(trimmed, 'hex');
  else if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) key = Buffer.from(trimmed, 'base64');
  else key = Buffer.alloc(0);
  if (key.length !== MASTER_KEY_BYTES) {
    throw new SecretBoxError(
      `PAYGATE_MASTER_KEY must be ${MASTER_KEY_BYTES} random bytes as base64 or hex (got ${key.length} bytes). ${MASTER_KEY_HINT}`,
    );
  }
  return key;
}

export function generateMasterKey(): string {
  return randomBytes(MASTER_KEY_BYTES).toString('base64');
}

export function createSecretBox(masterKey: Buffer): SecretBox {
  if (masterKey.length !== MASTER_KEY_BYTES) throw new SecretBoxError(`master key must be ${MASTER_KEY_BYTES} bytes`);
  const key = Buffer.from(masterKey);
  return {
    seal(plaintext, context) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, nonce, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, nonce, cipher.getAuthTag(), ciphertext]
        .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
        .join('.');
    },
    open(sealed, context) {
      const [version, nonce, tag, ciphertext, ...rest] = sealed.split('.');
      if (version !== VERSION || nonce === undefined || tag === undefined || ciphertext === undefined || rest.length > 0) {
        throw new SecretBoxError('sealed value has an unknown format');
      }
      const nonceBytes = Buffer.from(nonce, 'base64url');
      const tagBytes = Buffer.from(tag, 'base64url');
      // A full-length tag only: GCM would otherwise accept a truncated tag, which is far easier to forge.
      if (nonceBytes.length !== NONCE_BYTES || tagBytes.length !== TAG_BYTES)
        throw new SecretBoxError('sealed value has an unknown format');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, nonceBytes, { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(tagBytes);
        return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretBoxError('sealed value does not open with this master key and context (was PAYGATE_MASTER_KEY changed?)');
      }
    },
  };
}
