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
  '```sh readme-not-run: needs a fresh directory',
  'cd /tmp/new        # => not run, not checked',
  '```',
  '',
  '```ts',
  'const x = 1; // not a shell block: no marker needed',
  '```',
  '',
  '```sh readme-test=two readme-browser=pay-by-card',
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

  it('groups readme-test blocks by session in README order, skipping blocks marked readme-not-run (with why)', () => {
    expect([...book.sessions.keys()]).toEqual(['one', 'two']);
    expect(book.sessions.get('one')!.map((b) => [b.line, b.prints])).toEqual([
      [7, ['hi']],
      [24, ['bye']],
    ]);
    expect(book.sessions.get('two')![0]!.prints).toEqual(['id: ...']);
    expect(book.notRun).toEqual([{ line: 11, reason: 'needs a fresh directory' }]);
  });

  it('lists every run block in README order, across sessions, with its browser step', () => {
    expect(book.blocks.map((b) => [b.session, b.line, b.browser])).toEqual([
      ['one', 7, undefined],
      ['two', 19, 'pay-by-card'],
      ['one', 24, undefined],
    ]);
  });

  it('reads an indented block (in a list) without its indentation', () => {
    const indented = parseReadme('```sh readme-gateway\nnpm start\n```\n1. Step:\n   ```sh readme-test=a\n   echo hi   # => hi\n   ```\n');
    expect(indented.blocks[0]!.code).toBe('echo hi   # => hi\n');
  });

  it.each([
    ['no gateway block', '```sh readme-test=a\necho\n```\n', /no ```sh readme-gateway block/],
    ['a gateway block that is not npm start', '```sh readme-gateway\nnode x.js\n```\n', /must be `VAR=value ... npm start`/],
    ['a runnable block in another language', '```sh readme-gateway\nnpm start\n```\n```bash readme-test=a\necho\n```\n', /must be `sh`/],
    [
      'a shell block that says neither (D295)',
      '```sh readme-gateway\nnpm start\n```\n```bash\nnpx paygate serve\n```\n',
      /README\.md:4: every shell block says whether test\/readme runs it/,
    ],
    ['readme-not-run without its reason', '```sh readme-gateway\nnpm start\n```\n```sh readme-not-run:\nx\n```\n', /the reason is missing/],
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

  it.each([
    ['http://127.0.0.1:$MERCHANT_PORT/return', 'http://127.0.0.1:41234/return', true],
    ['http://127.0.0.1:$MERCHANT_PORT/return', 'http://127.0.0.1:4000/return', false],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the shell's ${NAME} form, in a README text
    ['POST http://127.0.0.1:${RECEIVER_PORT}/webhooks (... ms)', 'POST http://127.0.0.1:41235/webhooks (3 ms)', true],
    ['costs $UNSET', 'costs $UNSET', true],
  ])('%s names a variable of the session: against %j: %s', (text, output, matches) => {
    expect(printsPattern(text, { MERCHANT_PORT: '41234', RECEIVER_PORT: '41235' }).test(output)).toBe(matches);
  });
});
