/**
 * `paygate diff` and `paygate release` end to end on a copy of the real contract in a temporary git repository:
 * the gate fails on a breaking change, passes after a major version bump and with allow entries; diffs read git refs.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { buildChangelog } from '../../diff/changelog.js';
import { EXIT, EnvironmentError, UsageError, type CliIo } from '../command.js';
import { command as diff } from './diff.js';
import { command as release } from './release.js';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const EVENTS = 'openapi/components/schemas/events.yaml';
const SPEC = 'openapi/openapi.yaml';
const ALLOW = 'openapi/released/allowed-breaking-changes.yaml';

interface Captured extends CliIo {
  out: string;
  err: string;
}

function capture(cwd: string): Captured {
  const io: Captured = {
    out: '',
    err: '',
    cwd,
    stdout: (text) => void (io.out += text),
    stderr: (text) => void (io.err += text),
  };
  return io;
}

let dir: string;
const file = (relative: string) => path.join(dir, relative);
const git = (...args: string[]) => run('git', args, { cwd: dir });

async function edit(relative: string, from: string, to: string): Promise<void> {
  const source = await readFile(file(relative), 'utf8');
  expect(source, `${relative} should contain the text the test replaces`).toContain(from);
  await writeFile(file(relative), source.replace(from, to));
}

/** Removes `bank_ref_num` from the PAYMENT_FAILED payload: merchants reading it break (webhook and AsyncAPI event). */
async function removeEventField(): Promise<void> {
  await edit(
    EVENTS,
    'required: [status, message, mop_type, order_id, payment_id, bank_ref_num, payment_completed_at]',
    'required: [status, message, mop_type, order_id, payment_id, payment_completed_at]',
  );
  await edit(EVENTS, '    bank_ref_num: {type: string, maxLength: 32, description: Bank reference number.}\n', '');
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'paygate-diff-'));
  await cp(path.join(ROOT, 'openapi'), file('openapi'), { recursive: true, filter: (source) => !source.includes(`${path.sep}released`) });
  await git('init', '-q');
  await git('-c', 'user.name=test', '-c', 'user.email=test@example.com', 'commit', '-q', '--allow-empty', '-m', 'empty');
  await git('add', '-A');
  await git('-c', 'user.name=test', '-c', 'user.email=test@example.com', 'commit', '-q', '-m', 'contract 1.0.0');
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('paygate release and the compatibility gate', () => {
  it('refuses to gate before anything is released, saying how to create the baseline', async () => {
    await expect(diff.run(['--gate'], capture(dir))).rejects.toThrow(/npm run release/);
  });

  it('releases the current spec as the baseline, then finds nothing to gate', async () => {
    const io = capture(dir);
    expect(await release.run(['--date', '2026-11-25'], io)).toBe(EXIT.ok);
    expect(io.out).toContain('openapi/released/1.0.0.json');
    expect(io.out).toContain('openapi/released/1.0.0.asyncapi.json');
    const releases = YAML.parse(await readFile(file('openapi/released/releases.yaml'), 'utf8'));
    expect(releases).toEqual({ releases: [{ version: '1.0.0', date: '2026-11-25' }] });
    const gate = capture(dir);
    expect(await diff.run(['--gate'], gate)).toBe(EXIT.ok);
    expect(gate.out).toContain('0 breaking');
  }, 120_000);

  it('fails on a breaking change and says what to do', async () => {
    await removeEventField();
    const io = capture(dir);
    expect(await diff.run(['--gate'], io)).toBe(EXIT.failed);
    expect(io.err).toContain('Compatibility gate FAILED');
    expect(io.err).toContain(
      'property-removed  asyncapi#/channels/webhookEndpoint/messages/paymentFailed/payload/properties/data/properties/bank_ref_num',
    );
    expect(io.err).toContain('property-removed  openapi#/components/schemas/PaymentFailedData/properties/bank_ref_num');
    expect(io.err).toContain('set info.version to 2.0.0 in openapi/openapi.yaml');
    expect(io.err).toContain(ALLOW);
    const refused = capture(dir);
    expect(await release.run(['--date', '2026-11-26'], refused)).toBe(EXIT.failed);
    expect(refused.err).toContain('1.0.0 is already released');
  }, 120_000);

  it('passes with an allow entry (kind + pointer + reason) for every breaking change, and reports stale entries', async () => {
    const json = capture(dir);
    expect(await diff.run(['--gate', '--format', 'json'], json)).toBe(EXIT.failed);
    const blocking: { kind: string; pointer: string }[] = JSON.parse(json.out).gate.blocking;
    expect(blocking.length).toBeGreaterThan(0);
    const entries = blocking.map((c) => ({ kind: c.kind, pointer: c.pointer, reason: 'test: no merchant reads bank_ref_num' }));
    // an entry must name a pointer of the released or the current version (D104 one diff entry per change, at its definition): one that exists but matches no
    // change is stale, one that exists nowhere is refused
    const stale = { kind: 'property-removed', pointer: '/components/schemas/PaymentFailedData/properties/message', reason: 'left over' };
    const nowhere = { kind: 'property-removed', pointer: '/components/schemas/Nothing/properties/here', reason: 'left over' };
    await writeFile(file(ALLOW), YAML.stringify({ allowed: [...entries, nowhere] }));
    const refused = capture(dir);
    expect(await diff.run(['--gate'], refused)).toBe(EXIT.failed);
    expect(refused.err).toContain(
      'allow entry property-removed /components/schemas/Nothing/properties/here: the pointer exists in neither the released nor the current version',
    );
    await writeFile(file(ALLOW), YAML.stringify({ allowed: [...entries, stale] }));
    const io = capture(dir);
    expect(await diff.run(['--gate'], io)).toBe(EXIT.ok);
    expect(io.out).toMatch(
      /allowed: property-removed \/components\/schemas\/PaymentFailedData\/properties\/bank_ref_num \(test: no merchant reads bank_ref_num\)/,
    );
    expect(io.out).toContain('stale allow entry: property-removed /components/schemas/PaymentFailedData/properties/message');
    await writeFile(file(ALLOW), YAML.stringify({ allowed: [{ kind: 'property-removed', pointer: entries[0]!.pointer }] }));
    const noReason = capture(dir);
    expect(await diff.run(['--gate'], noReason)).toBe(EXIT.failed);
    expect(noReason.err).toContain('allowed[0] has no reason');
    await writeFile(file(ALLOW), YAML.stringify({ allowed: [] }));
  }, 120_000);

  it('passes after a major version bump, and releases 2.0.0', async () => {
    await edit(SPEC, 'version: 1.0.0', 'version: 2.0.0');
    const io = capture(dir);
    expect(await diff.run(['--gate'], io)).toBe(EXIT.ok);
    expect(io.out).toMatch(/breaking change\(s\) accepted: .* 2\.0\.0 is a new major version after 1\.0\.0/);
    const released = capture(dir);
    expect(await release.run(['--date', '2026-11-27'], released)).toBe(EXIT.ok);
    expect(released.out).toContain('openapi/released/2.0.0.json');
    const gate = capture(dir);
    expect(await diff.run(['--gate'], gate)).toBe(EXIT.ok);
    expect(gate.out).toContain('openapi/released/2.0.0.json -> openapi/openapi.yaml: 0 breaking');
  }, 180_000);

  it('gives the changelog: unreleased, then each release against the one before it', async () => {
    const { sections } = await buildChangelog({ cwd: dir, spec: SPEC, releasedDir: 'openapi/released' });
    expect(sections.map((s) => [s.title, s.date, s.previous, s.counts.breaking > 0])).toEqual([
      ['Unreleased', '', '2.0.0', false],
      ['2.0.0', '2026-11-27', '1.0.0', true],
      ['1.0.0', '2026-11-25', undefined, false],
    ]);
    expect(sections[1]!.groups[0]!.changes.map((c) => c.pointer)).toContain(
      '/components/schemas/PaymentFailedData/properties/bank_ref_num',
    );
  }, 120_000);
});

describe('paygate diff on git refs', () => {
  it.each(
    [
      { args: ['HEAD:openapi/openapi.yaml', SPEC], exit: EXIT.failed, shows: 'property-removed' },
      { args: ['HEAD:openapi/openapi.yaml', SPEC, '--fail-on', 'none'], exit: EXIT.ok, shows: 'Breaking changes' },
      { args: ['HEAD:openapi/openapi.yaml', SPEC, '--fail-on', 'unclassified'], exit: EXIT.failed, shows: 'property-removed' },
      { args: ['HEAD:openapi/openapi.yaml', SPEC, '--format', 'markdown'], exit: EXIT.failed, shows: '## Breaking changes' },
      {
        args: ['HEAD:openapi/openapi.yaml', 'HEAD:openapi/openapi.yaml'],
        exit: EXIT.ok,
        shows: '0 breaking, 0 unclassified, 0 warning, 0 non-breaking, 0 annotation',
      },
    ].map((row) => ({ ...row, line: row.args.join(' ') })),
  )(
    'diff $line exits $exit',
    async ({ args, exit, shows }) => {
      const io = capture(dir);
      expect(await diff.run(args, io)).toBe(exit);
      expect(io.out).toContain(shows);
    },
    60_000,
  );

  it.each(
    [
      { args: ['nosuchref:openapi/openapi.yaml', SPEC], error: EnvironmentError, message: /not a commit/ },
      { args: ['HEAD:openapi/missing.yaml', SPEC], error: EnvironmentError, message: /no such file at HEAD/ },
      { args: ['missing.yaml', SPEC], error: EnvironmentError, message: /no such file/ },
      { args: [SPEC], error: UsageError, message: /expected <old> and <new>/ },
      { args: [SPEC, SPEC, '--format', 'html'], error: UsageError, message: /--format html: expected one of text, json, markdown/ },
      { args: [SPEC, SPEC, '--colour'], error: UsageError, message: /colour/ },
      { args: ['--gate', SPEC], error: UsageError, message: /--gate compares/ },
      {
        args: [SPEC, SPEC, '--fail-on', 'loud'],
        error: UsageError,
        message: /--fail-on loud: expected one of breaking, unclassified, warning, info, none/,
      },
      { args: [SPEC, SPEC, '--top', 'many'], error: UsageError, message: /--top many: expected a whole number/ },
    ].map((row) => ({ ...row, line: row.args.join(' ') })),
  )(
    'diff $line throws $error.name',
    async ({ args, error, message }) => {
      const failure = diff.run(args, capture(dir));
      await expect(failure).rejects.toBeInstanceOf(error);
      await expect(failure).rejects.toThrow(message);
    },
    60_000,
  );
});
