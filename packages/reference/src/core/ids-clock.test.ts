import { describe, expect, it } from 'vitest';
import { formatMerchantId, formatSequenceId, ID_PATTERN, newBankRefNum, newDocumentId, newSessionId, newUtr, newWebhookEndpointId } from './ids.js';
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
  it('maps sequence values to unique 16-digit ids with prefixes', () => {
    const seen = new Set<string>();
    for (let i = 1; i <= 5000; i++) {
      const id = formatSequenceId('order', i);
      expect(id).toMatch(ID_PATTERN.order);
      seen.add(id);
    }
    expect(seen.size).toBe(5000);
    expect(formatSequenceId('payment', 1)).toMatch(ID_PATTERN.payment);
    expect(formatSequenceId('refund', 1)).toMatch(ID_PATTERN.refund);
    expect(formatSequenceId('settlement', 1)).toMatch(ID_PATTERN.settlement);
    expect(formatSequenceId('transaction', 1)).toMatch(ID_PATTERN.transaction);
    expect(formatSequenceId('order', 10n ** 16n - 1n)).toMatch(ID_PATTERN.order);
    expect(() => formatSequenceId('order', 0)).toThrow(RangeError);
  });
  it('merchant ids are 10-digit numeric strings, unique', () => {
    const ids = new Set(Array.from({ length: 2000 }, (_, i) => formatMerchantId(i + 1)));
    expect(ids.size).toBe(2000);
    for (const id of ids) expect(id).toMatch(/^[1-9]\d{9}$/);
  });
  it('random ids have the documented shapes', () => {
    expect(newSessionId()).toMatch(ID_PATTERN.session);
    expect(newWebhookEndpointId()).toMatch(ID_PATTERN.webhookEndpoint);
    expect(newDocumentId()).toMatch(ID_PATTERN.document);
    expect(newUtr()).toMatch(/^[A-Z0-9]{12}$/);
    expect(newBankRefNum()).toMatch(/^\d{12}$/);
    expect(newSessionId()).not.toBe(newSessionId());
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
