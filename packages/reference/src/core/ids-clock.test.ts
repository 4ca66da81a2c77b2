import { describe, expect, it } from 'vitest';
import { ID_PATTERN, newRandomId, newBankRefNum, newDocumentId, newSessionId, newUtr, newWebhookEndpointId, randomDigits } from './ids.js';
import {
  addSeconds,
  dayRange,
  formatCallbackTime,
  formatEventTime,
  formatEventTimeZ,
  formatIso,
  ManualClock,
  offsetClock,
  parseIso,
  systemClock,
} from './clock.js';

describe('ids', () => {
  it('row ids are random in the seed shapes: nothing sequential, nothing shared between installations', () => {
    const kinds = ['order', 'payment', 'refund', 'settlement', 'transaction'] as const;
    for (const kind of kinds) {
      const ids = Array.from({ length: 2000 }, () => newRandomId(kind));
      for (const id of ids) expect(id).toMatch(ID_PATTERN[kind]);
      expect(new Set(ids).size).toBe(2000);
      // no arithmetic link between consecutive ids (a sequence, even scrambled, has a constant difference mod 10^16)
      const diffs = new Set(ids.slice(1).map((id, i) => (BigInt(id.slice(2)) - BigInt(ids[i]!.slice(2)) + 10n ** 16n) % 10n ** 16n));
      expect(diffs.size).toBeGreaterThan(1990);
    }
    const merchants = new Set(Array.from({ length: 2000 }, () => newRandomId('merchant')));
    expect(merchants.size).toBe(2000);
    for (const id of merchants) expect(id).toMatch(/^[1-9]\d{9}$/);
  });
  it.each([1, 7, 8, 9, 12, 16])('randomDigits(%i): that many digits, every position drawing every digit (D175)', (length) => {
    const draws = Array.from({ length: 3000 }, () => randomDigits(length));
    for (const d of draws) expect(d).toMatch(new RegExp(`^\\d{${length}}$`));
    for (let at = 0; at < length; at++) expect(new Set(draws.map((d) => d[at])).size).toBe(10);
  });
  it('random ids have the documented shapes', () => {
    expect(newSessionId()).toMatch(ID_PATTERN.session);
    expect(newWebhookEndpointId()).toMatch(ID_PATTERN.webhookEndpoint);
    expect(newDocumentId()).toMatch(ID_PATTERN.document);
    expect(newUtr()).toMatch(/^[A-Z0-9]{12}$/);
    expect(newBankRefNum()).toMatch(/^\d{12}$/);
    expect(newSessionId()).not.toBe(newSessionId());
  });
  it('session ids cut from the random pool (D183): 1000 ids over several refills, all distinct, each decoding to 32 bytes spread over every byte value', () => {
    const ids = Array.from({ length: 1000 }, () => newSessionId());
    for (const id of ids) expect(id).toMatch(ID_PATTERN.session);
    expect(new Set(ids).size).toBe(ids.length);
    const bytes = ids.map((id) => Buffer.from(id.slice('session_'.length), 'base64url'));
    for (const b of bytes) expect(b.length).toBe(32);
    // no pool position is stuck: every byte position takes many values over the ids (a refill bug repeats bytes)
    for (let at = 0; at < 32; at++) expect(new Set(bytes.map((b) => b[at])).size).toBeGreaterThan(200);
  });
});

describe('time', () => {
  const t = parseIso('2026-11-21T10:15:30.123456Z');
  it('formats every documented shape', () => {
    expect(formatIso(t)).toBe('2026-11-21T10:15:30.123456Z');
    expect(formatCallbackTime(t)).toBe('2026-11-21 10:15:30+00:00');
    expect(formatEventTimeZ(t)).toBe('2026-11-21 10:15:30Z');
    expect(formatEventTime(t)).toBe('2026-11-21 10:15:30');
    expect(formatIso(parseIso('2026-01-01T00:00:00Z'))).toBe('2026-01-01T00:00:00.000000Z');
  });
  it('system clock has microseconds and never goes backwards', () => {
    const a = systemClock.now();
    const b = systemClock.now();
    expect(b).toBeGreaterThan(a);
    expect(Math.abs(a / 1000 - Date.now())).toBeLessThan(1000);
  });
  it('offset and manual clocks', () => {
    const manual = new ManualClock('2026-11-21T10:00:00Z');
    manual.advance(61);
    expect(formatIso(manual.now())).toBe('2026-11-21T10:01:01.000000Z');
    let offset = 3600;
    const shifted = offsetClock(manual, () => offset);
    expect(formatIso(shifted.now())).toBe('2026-11-21T11:01:01.000000Z');
    offset = 0;
    expect(shifted.now()).toBe(manual.now());
    expect(formatIso(addSeconds(t, -1))).toBe('2026-11-21T10:15:29.123456Z');
  });
  it('day ranges are inclusive UTC days and validated', () => {
    expect(dayRange({ field: 'from', day: '2026-11-01' }, { field: 'to', day: '2026-11-21' })).toEqual({
      fromIso: '2026-11-01T00:00:00.000000Z',
      toExclusiveIso: '2026-11-22T00:00:00.000000Z',
    });
    expect(() => dayRange({ field: 'from', day: '2026-02-30' }, { field: 'to', day: undefined })).toThrow(/Request validation failed/);
    expect(() => dayRange({ field: 'from', day: '2026-11-22' }, { field: 'to', day: '2026-11-21' })).toThrow();
  });
});
