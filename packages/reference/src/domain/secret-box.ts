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

export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

/** Parse a 32-byte master key written as base64, base64url or hex. */
export function parseMasterKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== MASTER_KEY_BYTES) {
    throw new SecretBoxError(
      `PAYGATE_MASTER_KEY must be ${MASTER_KEY_BYTES} random bytes as base64 or hex (got ${key.length} bytes). ` +
        `Generate one with: node -e "console.log(require('crypto').randomBytes(32).toString('base64'))"`,
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
      const nonce = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, nonce);
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return [VERSION, nonce, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
    },
    open(sealed, context) {
      const [version, nonce, tag, ciphertext, ...rest] = sealed.split('.');
      if (version !== VERSION || nonce === undefined || tag === undefined || ciphertext === undefined || rest.length > 0) {
        throw new SecretBoxError('sealed value has an unknown format');
      }
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(nonce, 'base64url'));
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(Buffer.from(tag, 'base64url'));
        return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
      } catch {
        throw new SecretBoxError('sealed value does not open with this master key and context (was PAYGATE_MASTER_KEY changed?)');
      }
    },
  };
}
