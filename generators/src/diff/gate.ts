/**
 * The compatibility gate: the current spec against the newest released contract. A change at or above the `--fail-on`
 * level (D105) passes only when `info.version` starts a new major version, or when `allowed-breaking-changes.yaml`
 * lists it (kind + the pointer of its definition, D104) with a reason. An entry whose pointer exists in neither
 * version is refused; an entry that matches nothing is reported as stale.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import semver from 'semver';
import YAML from 'yaml';
import { usesLine } from './report.js';
import { failsOn, type Change, type FailOn } from './types.js';

export interface AllowEntry {
  kind: string;
  /** The change's `pointer`: where it is defined, in the released or the current version. */
  pointer: string;
  reason: string;
}

export interface AllowFile {
  entries: AllowEntry[];
  /** Entries that cannot be used (missing kind, pointer or reason), each a sentence naming the entry. */
  invalid: string[];
}

export const ALLOW_FILE_HEADER = `# Breaking changes accepted without a new major version, until the next \`npm run release\` (which empties this list).
# Each entry: kind and pointer exactly as \`npm run compat\` prints them, and why no integrated client breaks.
#   - kind: property-removed
#     pointer: /components/schemas/Order/properties/legacy_field
#     reason: never sent by any gateway version (documented by mistake)
`;

export function renderAllowFile(entries: readonly AllowEntry[]): string {
  return `${ALLOW_FILE_HEADER}${YAML.stringify({ allowed: entries.map((e) => ({ kind: e.kind, pointer: e.pointer, reason: e.reason })) })}`;
}

export async function readAllowFile(file: string): Promise<AllowFile> {
  if (!existsSync(file)) return { entries: [], invalid: [] };
  let parsed: unknown;
  try {
    parsed = YAML.parse(await readFile(file, 'utf8'));
  } catch (error) {
    return { entries: [], invalid: [`${file} is not valid YAML: ${error instanceof Error ? error.message : String(error)}`] };
  }
  const list = parsed !== null && typeof parsed === 'object' && 'allowed' in parsed ? parsed.allowed : [];
  if (!Array.isArray(list)) return { entries: [], invalid: [`${file}: \`allowed\` must be a list of { kind, pointer, reason }`] };
  const entries: AllowEntry[] = [];
  const invalid: string[] = [];
  list.forEach((item: unknown, i) => {
    const field = (name: string) =>
      item !== null && typeof item === 'object' && name in item ? String((item as Record<string, unknown>)[name] ?? '').trim() : '';
    const entry = { kind: field('kind'), pointer: field('pointer'), reason: field('reason') };
    const missing = (['kind', 'pointer', 'reason'] as const).filter((k) => entry[k] === '');
    if (missing.length > 0)
      invalid.push(`${file}: allowed[${i}] has no ${missing.join(', ')} (every entry needs kind, pointer and a reason)`);
    else entries.push(entry);
  });
  return { entries, invalid };
}

export interface GateInput {
  releasedVersion: string;
  currentVersion: string;
  changes: readonly Change[];
  allow: AllowFile;
  /** Changes of this classification or a more severe one fail (default `breaking`). */
  failOn?: FailOn;
  /** Whether a pointer exists in the released or the current version (allow entries must name one). */
  pointerExists?: (pointer: string) => boolean;
}

export interface GateResult {
  passed: boolean;
  /** The current version starts a new major version: breaking changes are expected. */
  majorBump: boolean;
  /** Changes at or above the fail-on level neither covered by the major bump nor allowed. */
  blocking: Change[];
  failOn: FailOn;
  allowed: { change: Change; entry: AllowEntry }[];
  stale: AllowEntry[];
  invalid: string[];
}

const matches = (entry: AllowEntry, change: Change) => entry.kind === change.kind && entry.pointer === change.pointer;

export function evaluateGate(input: GateInput): GateResult {
  const current = semver.valid(input.currentVersion);
  const released = semver.valid(input.releasedVersion);
  const majorBump = current !== null && released !== null && semver.major(current) > semver.major(released);
  const failOn = input.failOn ?? 'breaking';
  const breaking = input.changes.filter((c) => failsOn(c.classification, failOn));
  const invalid = [...input.allow.invalid];
  if (input.pointerExists) {
    for (const entry of input.allow.entries) {
      if (!input.pointerExists(entry.pointer))
        invalid.push(
          `allow entry ${entry.kind} ${entry.pointer}: the pointer exists in neither the released nor the current version (copy it from the report: the change's definition)`,
        );
    }
  }
  const allowed: GateResult['allowed'] = [];
  const blocking: Change[] = [];
  for (const change of breaking) {
    const entry = input.allow.entries.find((e) => matches(e, change));
    if (entry) allowed.push({ change, entry });
    else if (!majorBump) blocking.push(change);
  }
  const stale = input.allow.entries.filter((e) => !breaking.some((c) => matches(e, c)));
  return { passed: blocking.length === 0 && invalid.length === 0, majorBump, blocking, failOn, allowed, stale, invalid };
}

export interface GateMessages {
  specFile: string;
  allowFile: string;
  releasedFile: string;
}

/** What the gate found and, when it fails, the three ways out. */
export function formatGate(result: GateResult, input: GateInput, where: GateMessages): string {
  const lines: string[] = [];
  for (const problem of result.invalid) lines.push(`error: ${problem}`);
  // one schema change met in several places is one allow entry: each place is named, so the lines are not repeats
  for (const { change, entry } of result.allowed) lines.push(`allowed: ${change.kind} ${change.pointer} (${entry.reason})`);
  for (const entry of result.stale) {
    lines.push(
      `stale allow entry: ${entry.kind} ${entry.pointer} matches no breaking change since ${input.releasedVersion}; remove it from ${where.allowFile}`,
    );
  }
  const breaking = input.changes.filter((c) => failsOn(c.classification, result.failOn)).length;
  if (result.majorBump && breaking > 0) {
    lines.push(
      `${breaking} breaking change(s) accepted: ${where.specFile} info.version ${input.currentVersion} is a new major version after ${input.releasedVersion}. Release it with \`paygate release\`.`,
    );
  }
  if (result.blocking.length > 0) {
    const next = semver.valid(input.releasedVersion) === null ? 'a new major version' : `${semver.major(input.releasedVersion) + 1}.0.0`;
    lines.push(
      '',
      `Compatibility gate FAILED: ${result.blocking.length} change(s) at --fail-on ${result.failOn} or above since the released ${input.releasedVersion} (${where.releasedFile}), and ${input.currentVersion} is not a new major version:`,
      ...result.blocking.map(
        (c) =>
          `  ${c.classification}  ${c.kind}  ${c.document}#${c.pointer}\n      ${c.message}${c.useCount > 0 ? `\n      ${usesLine(c)}` : ''}`,
      ),
      '',
      'Integrated clients break on these. Do one of:',
      `  1. revert the change in ${where.specFile} (or make it compatible: add instead of rename, keep old enum values, keep new fields optional in requests);`,
      `  2. start a new major version: set info.version to ${next} in ${where.specFile}, then \`paygate release\`;`,
      `  3. if no client can be affected, add an entry with the reason to ${where.allowFile}:`,
      ...result.blocking.flatMap((c) => [
        `       - kind: ${c.kind}`,
        `         pointer: ${c.pointer}`,
        '         reason: <why no integrated client breaks>',
      ]),
    );
  } else if (result.invalid.length === 0) {
    lines.push(
      `Compatibility gate passed: ${input.changes.length} change(s) since ${input.releasedVersion}, none at --fail-on ${result.failOn} or above without a major version or an allow entry.`,
    );
  }
  return `${lines.join('\n')}\n`;
}
