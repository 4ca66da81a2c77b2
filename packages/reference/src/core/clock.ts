import { validationError } from './errors.js';

/** An instant as integer microseconds since the Unix epoch (safe integer until year 2255). */
export type Micros = number;

/** Source of "now" for every service; the sandbox clock adds a DB-stored offset to system time. */
export interface Clock {
  now(): Micros;
}

const MICROS_PER_SECOND = 1_000_000;

let lastSystemMicros = 0;

/** System time with microsecond resolution, strictly increasing within this process. */
export const systemClock: Clock = {
  now(): Micros {
    const subMs = Number(process.hrtime.bigint() % 1000000n) / 1000; // 0..999 microseconds
    let t = Date.now() * 1000 + Math.floor(subMs);
    if (t <= lastSystemMicros) t = lastSystemMicros + 1;
    lastSystemMicros = t;
    return t;
  },
};

/** A clock that is `offsetSeconds()` ahead of `base` (sandbox time travel). */
export function offsetClock(base: Clock, offsetSeconds: () => number): Clock {
  return { now: () => base.now() + offsetSeconds() * MICROS_PER_SECOND };
}

/** A hand-driven clock for tests. */
export class ManualClock implements Clock {
  private t: Micros;
  constructor(start: string | Micros = '2026-11-21T10:15:30.123456Z') {
    this.t = typeof start === 'number' ? start : parseIso(start);
  }
  now(): Micros {
    return this.t;
  }
  advance(seconds: number): void {
    this.t += Math.round(seconds * MICROS_PER_SECOND);
  }
  set(iso: string): void {
    this.t = parseIso(iso);
  }
}

export function addSeconds(t: Micros, seconds: number): Micros {
  return t + Math.round(seconds * MICROS_PER_SECOND);
}

function parts(t: Micros): { date: string; time: string; micros: string } {
  if (!Number.isSafeInteger(t)) throw new RangeError(`invalid instant ${t}`);
  const ms = Math.floor(t / 1000);
  const iso = new Date(ms).toISOString(); // YYYY-MM-DDTHH:MM:SS.mmmZ
  const micros = String(((t % MICROS_PER_SECOND) + MICROS_PER_SECOND) % MICROS_PER_SECOND).padStart(6, '0');
  return { date: iso.slice(0, 10), time: iso.slice(11, 19), micros };
}

/** `2026-11-21T10:15:30.123456Z` (API responses, SQL parameters). */
export function formatIso(t: Micros): string {
  const p = parts(t);
  return `${p.date}T${p.time}.${p.micros}Z`;
}

/** `2026-11-21 10:15:30+00:00` (return-URL callback payment_completed_at). */
export function formatCallbackTime(t: Micros): string {
  const p = parts(t);
  return `${p.date} ${p.time}+00:00`;
}

/** `2026-11-21 10:15:30Z` (PAYMENT_FAILED event_time). */
export function formatEventTimeZ(t: Micros): string {
  const p = parts(t);
  return `${p.date} ${p.time}Z`;
}

/** `2026-11-21 10:15:30` (PAYMENT_SETTLED and MERCHANT_APPROVED event_time). */
export function formatEventTime(t: Micros): string {
  const p = parts(t);
  return `${p.date} ${p.time}`;
}

const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?Z$/;

/** Parse the UTC ISO form produced by {@link formatIso} / the DB adapters back to microseconds. */
export function parseIso(iso: string): Micros {
  const m = ISO_RE.exec(iso);
  if (!m) throw new RangeError(`not a UTC ISO timestamp: ${iso}`);
  const [, y, mo, d, h, mi, s, frac = ''] = m;
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  return ms * 1000 + Number(frac.padEnd(6, '0'));
}

const DAY_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** Validate a `YYYY-MM-DD` calendar date (400 naming `field` if invalid) and return its UTC midnight. */
export function parseDay(field: string, day: string): Micros {
  const m = DAY_RE.exec(day);
  if (m) {
    const [, y, mo, d] = m;
    const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d));
    if (new Date(ms).toISOString().slice(0, 10) === day) return ms * 1000;
  }
  throw validationError(field, 'must be a calendar date in the form YYYY-MM-DD');
}

/**
 * The latest instant a date filter reaches: far past anything the gateway stores, and well inside the instants it can
 * represent (microseconds as safe integers end in June 2255). A filter day after it is read as this instant, so
 * `to_date=9999-12-31` means "no upper bound" and `from_date=2300-01-01` finds nothing, instead of failing.
 */
export const LAST_FILTER_INSTANT: Micros = Date.UTC(2200, 0, 1) * 1000;

/** Inclusive UTC day range -> [start, endExclusive) instants as ISO strings for SQL. */
export function dayRange(
  from: { field: string; day: string | undefined },
  to: { field: string; day: string | undefined },
): { fromIso: string | undefined; toExclusiveIso: string | undefined } {
  const start = from.day !== undefined ? parseDay(from.field, from.day) : undefined;
  const end = to.day !== undefined ? parseDay(to.field, to.day) + 86_400 * MICROS_PER_SECOND : undefined;
  // compared as days (valid YYYY-MM-DD strings order like the days), before any instant is clamped
  if (from.day !== undefined && to.day !== undefined && to.day < from.day)
    throw validationError(to.field, `must not be before ${from.field}`);
  return {
    fromIso: start !== undefined ? formatIso(Math.min(start, LAST_FILTER_INSTANT)) : undefined,
    toExclusiveIso: end !== undefined ? formatIso(Math.min(end, LAST_FILTER_INSTANT)) : undefined,
  };
}
