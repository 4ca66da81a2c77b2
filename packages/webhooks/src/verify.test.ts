import { describe, expect, it } from 'vitest';
import { WebhookVerificationError, type WebhookVerificationErrorCode } from './errors.js';
import { buildWebhookHeaders, generateWebhookSecret, signWebhook } from './signing.js';
import { Webhook, verifyWebhook } from './verify.js';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const MSG_ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const TS = 1614265330;
const PAYLOAD = '{"test": 2432232314}';
const SIG = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';

const clockAt = (unixSeconds: number) => () => new Date(unixSeconds * 1000);
const specHeaders = () => ({ 'webhook-id': MSG_ID, 'webhook-timestamp': String(TS), 'webhook-signature': SIG });

function codeOf(fn: () => unknown): WebhookVerificationErrorCode {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(WebhookVerificationError);
    return (err as WebhookVerificationError).code;
  }
  throw new Error('expected verification to fail');
}

describe('Webhook.verify', () => {
  it('verifies the Standard Webhooks known-answer vector and returns parsed JSON', () => {
    const wh = new Webhook(SECRET, { clock: clockAt(TS) });
    expect(wh.verify(PAYLOAD, specHeaders())).toEqual({ test: 2432232314 });
    expect(wh.verify(Buffer.from(PAYLOAD), specHeaders())).toEqual({ test: 2432232314 });
    expect(wh.verify(new TextEncoder().encode(PAYLOAD), new Headers(specHeaders()))).toEqual({ test: 2432232314 });
  });

  it('verifyDetailed exposes the message id and timestamp', () => {
    const wh = new Webhook(SECRET, { clock: clockAt(TS) });
    expect(wh.verifyDetailed(PAYLOAD, specHeaders())).toEqual({
      id: MSG_ID,
      timestamp: new Date(TS * 1000),
      payload: { test: 2432232314 },
    });
  });

  it('looks headers up case-insensitively and accepts repeated signature headers', () => {
    const wh = new Webhook(SECRET, { clock: clockAt(TS) });
    const headers = { 'Webhook-Id': MSG_ID, 'WEBHOOK-TIMESTAMP': String(TS), 'webhook-signature': ['v1,AAAA', SIG] };
    expect(wh.verify(PAYLOAD, headers)).toEqual({ test: 2432232314 });
  });

  describe('tolerance window (default 300 s, injected clock)', () => {
    it.each([
      [TS - 300, true],
      [TS + 300, true],
      [TS + 301, 'timestamp_too_old'],
      [TS - 301, 'timestamp_too_new'],
    ] as const)('now=%i -> %s', (now, expected) => {
      const wh = new Webhook(SECRET, { clock: clockAt(now) });
      if (expected === true) expect(wh.verify(PAYLOAD, specHeaders())).toEqual({ test: 2432232314 });
      else expect(codeOf(() => wh.verify(PAYLOAD, specHeaders()))).toBe(expected);
    });

    it('honours a custom toleranceSeconds', () => {
      const wh = new Webhook(SECRET, { clock: clockAt(TS + 11), toleranceSeconds: 10 });
      expect(codeOf(() => wh.verify(PAYLOAD, specHeaders()))).toBe('timestamp_too_old');
      expect(new Webhook(SECRET, { clock: clockAt(TS + 10), toleranceSeconds: 10 }).verify(PAYLOAD, specHeaders())).toBeTruthy();
    });

    it('rejects the real clock for a 2021 timestamp', () => {
      expect(codeOf(() => new Webhook(SECRET).verify(PAYLOAD, specHeaders()))).toBe('timestamp_too_old');
    });

    it.each(['abc', '1614265330.5', '-1614265330', '1e9', ''])('rejects malformed timestamp %j', (ts) => {
      const wh = new Webhook(SECRET, { clock: clockAt(TS) });
      const code = codeOf(() => wh.verify(PAYLOAD, { ...specHeaders(), 'webhook-timestamp': ts }));
      expect(code).toBe(ts === '' ? 'missing_headers' : 'invalid_timestamp');
    });
  });

  describe('key rotation', () => {
    const old1 = generateWebhookSecret();
    const old2 = generateWebhookSecret();
    const now = 1_700_000_000;
    const body = '{"event_type":"PAYMENT_FAILED"}';

    it('accepts when any configured secret matches any signature', () => {
      // Sender still signs with the old secret only; receiver already knows old + new.
      const headers = buildWebhookHeaders({ secret: old1, msgId: 'msg_1', timestamp: now, payload: body });
      expect(new Webhook([SECRET, old1], { clock: clockAt(now) }).verify(body, headers)).toEqual({ event_type: 'PAYMENT_FAILED' });
    });

    it('accepts when the header carries several signatures and only the last matches', () => {
      const headers = buildWebhookHeaders({ secret: [old2, generateWebhookSecret(), old1], msgId: 'msg_1', timestamp: now, payload: body });
      headers['webhook-signature'] = `v1a,ignored-asymmetric ${headers['webhook-signature']}`;
      expect(new Webhook(old1, { clock: clockAt(now) }).verify(body, headers)).toBeTruthy();
      expect(new Webhook([SECRET, old2], { clock: clockAt(now) }).verify(body, headers)).toBeTruthy();
    });

    it('rejects when no secret matches any signature', () => {
      const headers = buildWebhookHeaders({ secret: [old1, old2], msgId: 'msg_1', timestamp: now, payload: body });
      expect(codeOf(() => new Webhook([SECRET, generateWebhookSecret()], { clock: clockAt(now) }).verify(body, headers))).toBe(
        'no_matching_signature',
      );
    });

    it('needs at least one valid secret', () => {
      expect(codeOf(() => new Webhook([]))).toBe('invalid_secret');
      expect(codeOf(() => new Webhook([SECRET, 'whsec_%%%']))).toBe('invalid_secret');
    });
  });

  describe('tampering', () => {
    const wh = new Webhook(SECRET, { clock: clockAt(TS) });

    it.each([
      ['body changed', '{"test": 2432232315}', specHeaders()],
      ['body re-serialised', JSON.stringify(JSON.parse(PAYLOAD)), specHeaders()],
      ['id changed', PAYLOAD, { ...specHeaders(), 'webhook-id': 'msg_other' }],
      ['timestamp changed', PAYLOAD, { ...specHeaders(), 'webhook-timestamp': String(TS + 1) }],
      ['signature truncated', PAYLOAD, { ...specHeaders(), 'webhook-signature': SIG.slice(0, -4) }],
      ['wrong version', PAYLOAD, { ...specHeaders(), 'webhook-signature': SIG.replace('v1,', 'v2,') }],
      ['garbage signature', PAYLOAD, { ...specHeaders(), 'webhook-signature': 'nonsense' }],
    ])('%s -> no_matching_signature with a helpful message', (_name, body, headers) => {
      try {
        wh.verify(body, headers);
        expect.unreachable();
      } catch (err) {
        expect((err as WebhookVerificationError).code).toBe('no_matching_signature');
        expect((err as Error).message).toMatch(/secret/);
        expect((err as Error).message).toMatch(/raw request body unmodified/);
      }
    });
  });

  it('reports every missing header', () => {
    const wh = new Webhook(SECRET, { clock: clockAt(TS) });
    try {
      wh.verify(PAYLOAD, { 'webhook-id': MSG_ID });
      expect.unreachable();
    } catch (err) {
      expect((err as WebhookVerificationError).code).toBe('missing_headers');
      expect((err as Error).message).toContain('webhook-timestamp, webhook-signature');
    }
    expect(codeOf(() => wh.verify(PAYLOAD, {}))).toBe('missing_headers');
    expect(codeOf(() => wh.verify(PAYLOAD, new Headers()))).toBe('missing_headers');
  });

  it('explains how to fix a parsed-object payload', () => {
    const wh = new Webhook(SECRET, { clock: clockAt(TS) });
    try {
      wh.verify(JSON.parse(PAYLOAD) as never, specHeaders());
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(WebhookVerificationError);
      expect((err as WebhookVerificationError).code).toBe('payload_not_raw');
      expect((err as Error).message).toContain('Webhook payload must be the raw request body (string or Buffer)');
      expect((err as Error).message).toContain('Are you passing the parsed JSON?');
      expect((err as Error).message).toContain("express.raw({ type: 'application/json' })");
    }
  });

  it('reports invalid JSON only after the signature is valid', () => {
    const now = 1_700_000_000;
    const body = 'not json';
    const headers = buildWebhookHeaders({ secret: SECRET, msgId: 'msg_x', timestamp: now, payload: body });
    expect(codeOf(() => new Webhook(SECRET, { clock: clockAt(now) }).verify(body, headers))).toBe('invalid_json');
  });

  it('verifyWebhook is the one-shot form', () => {
    expect(verifyWebhook({ secret: SECRET, payload: PAYLOAD, headers: specHeaders(), clock: clockAt(TS) })).toEqual({ test: 2432232314 });
    const sig = signWebhook({ secret: SECRET, msgId: 'm', timestamp: TS, payload: 'x' });
    expect(sig.startsWith('v1,')).toBe(true);
  });
});
