import { describe, expect, it } from 'vitest';
import { parseReadme, printsPattern } from './readme-blocks.js';

const SAMPLE = [
  'Start it:',
  '',
  '```sh readme-gateway',
  'A_ID=pk_x A_SECRET=ps_y npm start',
  '```',
  '',
  '```sh readme-test=one',
  'echo hi            # => hi',
  '```',
  '',
  '```sh',
  'open a browser     # => not run, not checked',
  '```',
  '',
  '```sh readme-test=two',
  'echo "id: 42"',
  '# => id: ...',
  '```',
  '',
  '```sh readme-test=one',
  'echo bye           # => bye',
  '```',
  '',
].join('\n');

describe('parseReadme (the README marker convention, D128)', () => {
  const book = parseReadme(SAMPLE);

  it('reads the gateway block assignments', () => {
    expect(book.gatewayEnv).toEqual({ A_ID: 'pk_x', A_SECRET: 'ps_y' });
  });

  it('groups readme-test blocks by session in README order, skipping plain sh blocks', () => {
    expect([...book.sessions.keys()]).toEqual(['one', 'two']);
    expect(book.sessions.get('one')!.map((b) => [b.line, b.prints])).toEqual([
      [7, ['hi']],
      [20, ['bye']],
    ]);
    expect(book.sessions.get('two')![0]!.prints).toEqual(['id: ...']);
  });

  it.each([
    ['no gateway block', '```sh readme-test=a\necho\n```\n', /no ```sh readme-gateway block/],
    ['a gateway block that is not npm start', '```sh readme-gateway\nnode x.js\n```\n', /must be `VAR=value ... npm start`/],
    ['a runnable block in another language', '```sh readme-gateway\nnpm start\n```\n```bash readme-test=a\necho\n```\n', /must be `sh`/],
  ])('refuses %s', (_name, markdown, message) => {
    expect(() => parseReadme(markdown)).toThrow(message);
  });
});

describe('printsPattern', () => {
  it.each([
    ['APPROVED', 'APPROVED\n', true],
    ['APPROVED', 'PENDING\n', false],
    ['{"status":"ok",...}', '{"status":"ok","mode":"sandbox"}', true],
    ['{"status":"ok",...}', '{"status":"down","mode":"sandbox"}', false],
    ['endpoint we_...', 'endpoint we_abc', true],
    [
      '<-- [204] PAYMENT_CAPTURED msg_... POST http://127.0.0.1:.../webhooks (... ms)',
      '<-- [204] PAYMENT_CAPTURED msg_1 POST http://127.0.0.1:4001/webhooks (3 ms)',
      true,
    ],
    ['<-- [204] PAYMENT_CAPTURED msg_...', '<-- [500] PAYMENT_CAPTURED msg_1', false],
    // `...` stays within one line
    ['a ... b', 'a\nb', false],
  ])('%s against %j: %s', (text, output, matches) => {
    expect(printsPattern(text).test(output)).toBe(matches);
  });
});
