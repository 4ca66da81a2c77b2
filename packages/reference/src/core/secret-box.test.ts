import { describe, expect, it } from 'vitest';
import { createSecretBox, generateMasterKey, parseMasterKey, SecretBoxError } from './secret-box.js';

const box = createSecretBox(parseMasterKey(generateMasterKey()));

describe('secret box', () => {
  it('round-trips and never stores the plaintext', () => {
    const sealed = box.seal('ek_test_secret-value', 'merchant:1:encryption_key');
    expect(sealed).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(sealed).not.toContain('secret-value');
    expect(box.open(sealed, 'merchant:1:encryption_key')).toBe('ek_test_secret-value');
  });

  it('uses a fresh nonce per value', () => {
    expect(box.seal('same', 'c')).not.toBe(box.seal('same', 'c'));
  });

  it('refuses another context, another key and tampering', () => {
    const sealed = box.seal('whsec_abc', 'webhook:we_1');
    expect(() => box.open(sealed, 'webhook:we_2')).toThrow(SecretBoxError);
    expect(() => createSecretBox(parseMasterKey(generateMasterKey())).open(sealed, 'webhook:we_1')).toThrow(/master key/);
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => box.open(parts.join('.'), 'webhook:we_1')).toThrow(SecretBoxError);
    expect(() => box.open('plaintext', 'webhook:we_1')).toThrow(/unknown format/);
  });

  it('refuses a truncated authentication tag or nonce', () => {
    const sealed = box.seal('whsec_abc', 'webhook:we_1');
    const parts = sealed.split('.');
    const short = [...parts];
    short[2] = Buffer.from(parts[2]!, 'base64url').subarray(0, 4).toString('base64url');
    expect(() => box.open(short.join('.'), 'webhook:we_1')).toThrow(/unknown format/);
    const nonce = [...parts];
    nonce[1] = Buffer.from(parts[1]!, 'base64url').subarray(0, 8).toString('base64url');
    expect(() => box.open(nonce.join('.'), 'webhook:we_1')).toThrow(/unknown format/);
  });

  it('parses base64 and hex master keys and explains a bad one', () => {
    expect(parseMasterKey('00'.repeat(32))).toHaveLength(32);
    expect(parseMasterKey(Buffer.alloc(32, 7).toString('base64'))).toHaveLength(32);
    expect(() => parseMasterKey('too-short')).toThrow(/randomBytes\(32\)/);
    expect(() => parseMasterKey(`${'A'.repeat(43)}=!`)).toThrow(/got 0 bytes/);
    // the message never echoes the (possibly real) key
    const wrong = Buffer.alloc(31, 9).toString('base64');
    expect(() => parseMasterKey(wrong)).toThrow(SecretBoxError);
    try {
      parseMasterKey(wrong);
    } catch (err) {
      expect((err as Error).message).not.toContain(wrong);
    }
  });
});
