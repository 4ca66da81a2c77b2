import type { Db } from '../db/db.js';
import { validationError } from './errors.js';
import { offsetClock, systemClock, type Clock } from './clock.js';

/**
 * Sandbox clock: system time + an offset (seconds) stored in `sandbox_clock`, shared by every process. `now()` is
 * synchronous and uses the cached offset; `refresh()` re-reads it (the worker does so on every tick).
 */
export interface SandboxClock extends Clock {
  offsetSeconds(): number;
  refresh(): Promise<number>;
  /** Move sandbox time forward by `seconds` (> 0); returns the new offset. */
  advance(seconds: number): Promise<number>;
  /** Back to system time. */
  reset(): Promise<void>;
}

export async function loadSandboxClock(db: Db, base: Clock = systemClock): Promise<SandboxClock> {
  let offset = 0;
  const clock = offsetClock(base, () => offset);
  const read = async (): Promise<number> => {
    const { rows } = await db.query<{ offset_seconds: number }>('SELECT offset_seconds FROM sandbox_clock WHERE id = 1');
    offset = rows[0]?.offset_seconds ?? 0;
    return offset;
  };
  await read();
  return {
    now: () => clock.now(),
    offsetSeconds: () => offset,
    refresh: read,
    async advance(seconds: number) {
      if (!Number.isSafeInteger(seconds) || seconds <= 0 || seconds > 366 * 86_400) {
        throw validationError('seconds', 'must be an integer from 1 to 31622400');
      }
      const { rows } = await db.query<{ offset_seconds: number }>(
        'UPDATE sandbox_clock SET offset_seconds = offset_seconds + $1, updated_at = now() WHERE id = 1 RETURNING offset_seconds',
        [seconds],
      );
      offset = rows[0]?.offset_seconds ?? offset + seconds;
      return offset;
    },
    async reset() {
      await db.query('UPDATE sandbox_clock SET offset_seconds = 0, updated_at = now() WHERE id = 1');
      offset = 0;
    },
  };
}
