import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { allowKeyOf, allowMatches } from './allow-match.js';
import { compareContracts } from './compare.js';
import { evaluateGate, formatGate, readAllowFile, renderAllowFile, type AllowEntry, type GateInput } from './gate.js';
import { baseOpenApi, snapshot } from './test-fixtures.js';
import type { Change } from './types.js';

const STATUS = '/components/schemas/Order/properties/status/enum';
const dir = mkdtempSync(path.join(tmpdir(), 'paygate-allow-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The changes from the fixture's released contract (status: created, paid) to one whose status enum is `values`. */
function changesTo(values: string[]): Change[] {
  const doc = baseOpenApi();
  doc.components.schemas.Order.properties.status.enum = values;
  doc.info.version = '1.1.0';
  return compareContracts(snapshot('released'), snapshot('current', doc));
}

function gate(changes: Change[], entries: AllowEntry[]): { input: GateInput; result: ReturnType<typeof evaluateGate>; text: string } {
  const input: GateInput = {
    releasedVersion: '1.0.0',
    currentVersion: '1.1.0',
    changes,
    allow: { entries, invalid: [] },
    failOn: 'warning',
  };
  const result = evaluateGate(input);
  const text = formatGate(result, input, { specFile: 'spec.yaml', allowFile: 'allow.yaml', releasedFile: '1.0.0.json' });
  return { input, result, text };
}

/** The entries the gate's failure text suggests, as YAML the author pastes under `allowed:` (reason filled in). */
function suggested(text: string): AllowEntry[] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.includes('add an entry with the reason to'));
  const block = lines
    .slice(start + 1)
    .map((l) => l.replace('<why no integrated client breaks>', 'reviewed'))
    .join('\n');
  return YAML.parse(block) as AllowEntry[];
}

async function throughAllowFile(entries: AllowEntry[]): Promise<AllowEntry[]> {
  const file = path.join(dir, `allow-${Math.random().toString(36).slice(2)}.yaml`);
  writeFileSync(file, renderAllowFile(entries));
  const read = await readAllowFile(file);
  expect(read.invalid).toEqual([]);
  return read.entries;
}

describe('allow entries name an enum value by its list and value (D461)', () => {
  it('a value inserted in sorted order before an allowed one leaves the allowed one matched, and the suggestion works', async () => {
    // 1.1.0 adds `refunded` at the end; the gate suggests the entry, the author writes it down
    const first = gate(changesTo(['created', 'paid', 'refunded']), []);
    expect(first.result.blocking.map((c) => c.after)).toEqual(['refunded']);
    const refunded = await throughAllowFile(suggested(first.text));
    expect(refunded).toEqual([{ kind: 'enum-value-added', pointer: STATUS, value: 'refunded', reason: 'reviewed' }]);
    expect(gate(changesTo(['created', 'paid', 'refunded']), refunded).result.passed).toBe(true);

    // later, `failed` is inserted in sorted order: `refunded` moves from enum/2 to enum/3
    const second = gate(changesTo(['created', 'failed', 'paid', 'refunded']), refunded);
    expect(second.result.allowed.map((a) => a.change.pointer)).toEqual([`${STATUS}/3`]);
    expect(second.result.stale).toEqual([]);
    expect(second.result.blocking.map((c) => c.after)).toEqual(['failed']); // fails once, for the new value only
    const next = suggested(second.text);
    expect(next).toEqual([{ kind: 'enum-value-added', pointer: STATUS, value: 'failed', reason: 'reviewed' }]);
    const both = await throughAllowFile([...refunded, ...next]);
    const third = gate(changesTo(['created', 'failed', 'paid', 'refunded']), both);
    expect(third.result.passed).toBe(true);
    expect(third.result.warnings).toEqual([]);
  });

  it('still reads an entry that names the value by its position, with a warning that gives the rewrite', () => {
    const positional: AllowEntry = { kind: 'enum-value-added', pointer: `${STATUS}/2`, reason: 'reviewed' };
    const { result, text } = gate(changesTo(['created', 'paid', 'refunded']), [positional]);
    expect(result.passed).toBe(true);
    expect(text).toContain(`warning: allow entry enum-value-added ${STATUS}/2 names the value by its position`);
    expect(text).toContain(`- kind: enum-value-added\n      pointer: ${STATUS}\n      value: "refunded"\n      reason: reviewed`);
  });

  it('a positional entry that a later insertion moved off its value is stale, and the warning says how to name it', () => {
    const positional: AllowEntry = { kind: 'enum-value-added', pointer: `${STATUS}/2`, reason: 'reviewed' };
    const { result, text } = gate(changesTo(['created', 'failed', 'paid', 'refunded']), [positional]);
    expect(result.passed).toBe(false);
    expect(result.stale).toEqual([positional]);
    expect(text).toContain(`names a value by its position (the old form)`);
    expect(text).toContain(`\`pointer: ${STATUS}\` and \`value: <the value>\``);
  });

  it.each([
    { case: 'same list and value', entry: { kind: 'enum-value-added', pointer: STATUS, value: 'refunded' }, matches: true },
    { case: 'another value', entry: { kind: 'enum-value-added', pointer: STATUS, value: 'paid' }, matches: false },
    { case: 'another list', entry: { kind: 'enum-value-added', pointer: `${STATUS}x`, value: 'refunded' }, matches: false },
    { case: 'another kind', entry: { kind: 'enum-value-removed', pointer: STATUS, value: 'refunded' }, matches: false },
    { case: 'its position (old form)', entry: { kind: 'enum-value-added', pointer: `${STATUS}/2` }, matches: true },
    { case: 'the list without a value', entry: { kind: 'enum-value-added', pointer: STATUS }, matches: false },
  ])('allowMatches: $case -> $matches', ({ entry, matches }) => {
    const change = changesTo(['created', 'paid', 'refunded']).find((c) => c.kind === 'enum-value-added') as Change;
    expect(allowKeyOf(change)).toEqual({ kind: 'enum-value-added', pointer: STATUS, value: 'refunded' });
    expect(allowMatches(entry, change)).toBe(matches);
  });

  it('a removed value is named by the list and the value too; a null value survives the file', async () => {
    const doc = baseOpenApi();
    doc.components.schemas.Order.properties.status.enum = ['created', 'paid', null];
    const released = snapshot('released', doc);
    const removed = compareContracts(released, snapshot('current')).find((c) => c.kind === 'enum-value-removed') as Change;
    expect(allowKeyOf(removed)).toEqual({ kind: 'enum-value-removed', pointer: STATUS, value: null });
    const [entry] = await throughAllowFile([{ ...(allowKeyOf(removed) as AllowEntry), reason: 'reviewed' }]);
    expect(entry?.value).toBeNull();
    expect(allowMatches(entry as AllowEntry, removed)).toBe(true);
  });
});
