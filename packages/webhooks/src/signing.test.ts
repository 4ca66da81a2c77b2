import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { WebhookVerificationError } from './errors.js';
import { buildWebhookHeaders, decodeWebhookSecret, generateWebhookSecret, signWebhook } from './signing.js';

// Known-answer vector from the Standard Webhooks specification / reference libraries.
const SPEC = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  msgId: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  payload: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

describe('signWebhook', () => {
  it('matches the Standard Webhooks known-answer vector', () => {
    expect(signWebhook(SPEC)).toBe(SPEC.signature);
  });

  it('accepts a Date, a Buffer payload and a bare base64 secret with the same result', () => {
    expect(
      signWebhook({
        secret: SPEC.secret.slice('whsec_'.length),
        msgId: SPEC.msgId,
        timestamp: new Date(SPEC.timestamp * 1000 + 999),
        payload: Buffer.from(SPEC.payload),
      }),
    ).toBe(SPEC.signature);
  });

  it('is HMAC-SHA256(key, "id.ts.body") in base64', () => {
    const secret = generateWebhookSecret();
    const key = Buffer.from(secret.slice(6), 'base64');
    const expected = createHmac('sha256', key).update('msg_1.1700000000.{"a":"é"}').digest('base64');
    expect(signWebhook({ secret, msgId: 'msg_1', timestamp: 1700000000, payload: '{"a":"é"}' })).toBe(`v1,${expected}`);
  });

  it('rejects bad timestamps and empty message ids', () => {
    expect(() => signWebhook({ ...SPEC, timestamp: 1.5 })).toThrow(TypeError);
    expect(() => signWebhook({ ...SPEC, timestamp: new Date(Number.NaN) })).toThrow(TypeError);
    expect(() => signWebhook({ ...SPEC, msgId: '' })).toThrow(TypeError);
  });
});

describe('secrets', () => {
  it('generateWebhookSecret returns whsec_ + base64 of 32 random bytes', () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(decodeWebhookSecret(a)).toHaveLength(32);
    expect(a).not.toBe(b);
  });

  it.each(['', 'whsec_', 'whsec_not base64!', 'whsec_c2hvcnQ=', `whsec_${Buffer.alloc(65).toString('base64')}`])(
    'rejects malformed secret %j with code invalid_secret',
    (secret) => {
      try {
        decodeWebhookSecret(secret);
        expect.unreachable();
      } catch (err) {
        expect(err).toBeInstanceOf(WebhookVerificationError);
        expect((err as WebhookVerificationError).code).toBe('invalid_secret');
        expect((err as Error).message).toMatch(/whsec_/);
      }
    },
  );
});

describe('buildWebhookHeaders', () => {
  it('returns the three Standard Webhooks headers', () => {
    expect(buildWebhookHeaders(SPEC)).toEqual({
      'webhook-id': SPEC.msgId,
      'webhook-timestamp': '1614265330',
      'webhook-signature': SPEC.signature,
    });
  });

  it('signs with every secret during rotation, space-separated', () => {
    const other = generateWebhookSecret();
    const headers = buildWebhookHeaders({ ...SPEC, secret: [SPEC.secret, other] });
    const parts = headers['webhook-signature'].split(' ');
    expect(parts).toEqual([SPEC.signature, signWebhook({ ...SPEC, secret: other })]);
  });

  it('requires at least one secret', () => {
    expect(() => buildWebhookHeaders({ ...SPEC, secret: [] })).toThrow(WebhookVerificationError);
  });
});
