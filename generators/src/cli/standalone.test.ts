import { describe, expect, it } from 'vitest';
import type { CliIo } from './command.js';
import { runCli } from './main.js';
import { runCommand } from './run-command.js';
import { standaloneCommand } from './standalone.js';

function captured(): { io: CliIo; out: () => string } {
  let text = '';
  const io: CliIo = { stdout: (t) => void (text += t), stderr: (t) => void (text += t), cwd: process.cwd() };
  return { io, out: () => text };
}

describe('standalone commands (the bin runs them without loading the others)', () => {
  it.each([
    ['serve --help', ['serve', '--help']],
    ['serve with an argument (usage error)', ['serve', 'extra']],
  ])('%s: the same output and exit code as through runCli', async (_case, argv) => {
    const alone = captured();
    const command = await standaloneCommand(argv);
    expect(command?.name).toBe('serve');
    const aloneCode = await runCommand(command!, argv.slice(1), alone.io);
    const full = captured();
    const fullCode = await runCli(argv, full.io);
    expect(aloneCode).toBe(fullCode);
    expect(alone.out()).toBe(full.out());
    expect(alone.out()).toContain('Usage: paygate serve');
  });

  it.each([[['generate']], [['--help']], [[]], [['contract', 'serve']]])('leaves %j to runCli', async (argv) => {
    expect(await standaloneCommand(argv)).toBeUndefined();
  });
});
