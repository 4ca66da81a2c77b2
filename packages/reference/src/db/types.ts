/** Text-format value parsers shared by the PGlite and pg adapters, keyed by PostgreSQL type OID. */

export const OID = {
  INT8: 20,
  DATE: 1082,
  TIMESTAMP: 1114,
  TIMESTAMPTZ: 1184,
  NUMERIC: 1700,
} as const;

/** int8 -> number, refusing values that are not safe integers (money and ids stay exact). */
export function parseInt8(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`int8 value ${text} is outside the safe integer range`);
  return n;
}

const PG_TS = /^(\d{4,})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?([+-]\d{2}(?::?\d{2})?(?::?\d{2})?)?$/;

/**
 * PostgreSQL timestamptz text (session TimeZone UTC: `2026-11-21 10:15:30.1234+00`) -> `2026-11-21T10:15:30.123400Z`.
 * Non-UTC offsets are converted exactly (microseconds kept).
 */
export function parseTimestamptz(text: string): string {
  const m = PG_TS.exec(text);
  if (!m) return text; // infinity / -infinity / BC dates: hand back unchanged
  const [, y, mo, d, h, mi, s, frac = '', off = '+00'] = m;
  const micros = frac.padEnd(6, '0');
  if (/^[+-]00(:?00)?(:?00)?$/.test(off)) return `${y}-${mo}-${d}T${h}:${mi}:${s}.${micros}Z`;
  const sign = off.startsWith('-') ? -1 : 1;
  const digits = off.slice(1).replace(/:/g, '');
  const offsetSeconds =
    sign * (Number(digits.slice(0, 2)) * 3600 + Number(digits.slice(2, 4) || '0') * 60 + Number(digits.slice(4, 6) || '0'));
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) - offsetSeconds * 1000;
  return `${new Date(ms).toISOString().slice(0, 19)}.${micros}Z`;
}

/** timestamp without time zone: treated as UTC. */
export function parseTimestamp(text: string): string {
  return parseTimestamptz(`${text}+00`);
}

export const identity = (text: string): string => text;
