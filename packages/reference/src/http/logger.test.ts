import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger, heldDestination, maskCardNumbers } from './logger.js';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, cb) {
      for (const l of chunk.toString('utf8').split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
      cb();
    },
  });
  return { lines, logger: createLogger({ destination, level: 'info' }) };
}

describe('logger', () => {
  it('redacts secrets at any of the first levels and masks card-like numbers', () => {
    const { lines, logger } = capture();
    logger.info(
      {
        headers: { 'x-client-secret': 'cs_live_supersecret', authorization: 'Bearer abc' },
        body: { hash: 'deadbeef', encryption_key: 'ek_1', client_secret: 'cs_2', nested: { secret: 'whsec_x' } },
        note: 'card 4111 1111 1111 1111 and order OD1000000000000001 and merchant 10000001',
      },
      'hello',
    );
    const text = JSON.stringify(lines);
    for (const secret of ['cs_live_supersecret', 'Bearer abc', 'deadbeef', 'ek_1', 'cs_2', 'whsec_x', '4111 1111 1111 1111']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('OD1000000000000001');
    expect(text).toContain('10000001');
  });

  it('masks only Luhn-valid 13..19 digit runs', () => {
    expect(maskCardNumbers('4111111111111111')).not.toContain('4111111111111111');
    expect(maskCardNumbers('1234567890123')).toBe('1234567890123');
    expect(maskCardNumbers('bank_ref 608123456789')).toBe('bank_ref 608123456789');
  });
});

/** `paygate serve`'s banner is one block: lines logged while it starts follow it (D134 paygate serve prints one human block first). */
describe('heldDestination', () => {
  it('holds JSON lines until released, then writes them in order and the later ones straight through', () => {
    const written: string[] = [];
    const held = heldDestination({ write: (line: string) => void written.push(line) });
    const logger = createLogger({ destination: held, level: 'info' });
    logger.info({ file: '/data/master.key' }, 'generated a master key');
    logger.warn('second');
    expect(written).toEqual([]);
    held.release();
    expect(written.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['generated a master key', 'second']);
    logger.info('after the banner');
    expect(written).toHaveLength(3);
    held.release(); // idempotent: nothing written twice
    expect(written).toHaveLength(3);
  });
});
