/**
 * The compatibility gate: the current spec against the newest released contract. A change at or above the `--fail-on`
 * level (D105 five change classifications and --fail-on) passes only when `info.version` starts a new major version, or when `allowed-breaking-changes.yaml`
 * lists it (kind + the pointer of its definition, D104; for a value of an enum, the list's pointer + the value, D461)
 * with a reason. An entry whose pointer exists in neither version is refused; an entry that matches nothing is
 * reported as stale.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import semver from 'semver';
import YAML from 'yaml';
import { allowKeyOf, allowMatches, isPositionalEntry } from './allow-match.js';
import { usesLine } from './report.js';
import { failsOn, type Change, type FailOn } from './types.js';

export interface AllowEntry {
  kind: string;
  /** The change's `pointer`: where it is defined, in the released or the current version (a value's: its list). */
  pointer: string;
  /** For a value added to or removed from a list (`enum`): the value (present, possibly null, only then). */
  value?: unknown;
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
# A value added to or removed from an enum is named by the enum's pointer and the value, never its position:
#   - kind: enum-value-added
#     pointer: /components/schemas/ErrorCode/enum
#     value: ERR_EXAMPLE_409
#     reason: only sent to clients that opted in
`;

export function renderAllowFile(entries: readonly AllowEntry[]): string {
  const allowed = entries.map((e) => ({
    kind: e.kind,
    pointer: e.pointer,
    ...(Object.hasOwn(e, 'value') ? { value: e.value } : {}),
    reason: e.reason,
  }));
  return `${ALLOW_FILE_HEADER}${YAML.stringify({ allowed })}`;
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
    const entry: AllowEntry = { kind: field('kind'), pointer: field('pointer'), reason: field('reason') };
    if (item !== null && typeof item === 'object' && Object.hasOwn(item, 'value')) entry.value = (item as { value: unknown }).value;
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
  /** Entries still read but written in an old form (a value named by its position), each saying how to rewrite it. */
  warnings: string[];
}

/** An entry as the allow file writes it (the lines the gate suggests). */
export function allowEntryLines(key: { kind: string; pointer: string; value?: unknown }, reason: string): string[] {
  return [
    `- kind: ${key.kind}`,
    `  pointer: ${key.pointer}`,
    // JSON is YAML: a string value stays a string (`"1"`, `"true"`), a number or null stays what it is
    ...(Object.hasOwn(key, 'value') ? [`  value: ${JSON.stringify(key.value)}`] : []),
    `  reason: ${reason}`,
  ];
}

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
  const warnings: string[] = [];
  for (const change of breaking) {
    const entry = input.allow.entries.find((e) => allowMatches(e, change));
    if (entry) allowed.push({ change, entry });
    else if (!majorBump) blocking.push(change);
    if (entry && change.list !== undefined && !Object.hasOwn(entry, 'value')) {
      warnings.push(
        `allow entry ${entry.kind} ${entry.pointer} names the value by its position, which moves when a value is inserted before it; write it as:\n${allowEntryLines(
          allowKeyOf(change),
          entry.reason,
        )
          .map((l) => `    ${l}`)
          .join('\n')}`,
      );
    }
  }
  const stale = input.allow.entries.filter((e) => !breaking.some((c) => allowMatches(e, c)));
  for (const entry of stale) {
    if (isPositionalEntry(entry))
      warnings.push(
        `allow entry ${entry.kind} ${entry.pointer} names a value by its position (the old form), and that position no longer holds a value it accepts: name the enum and the value instead (\`pointer: ${entry.pointer.replace(/\/\d+$/, '')}\` and \`value: <the value>\`, as the gate's suggestion prints them)`,
      );
  }
  return { passed: blocking.length === 0 && invalid.length === 0, majorBump, blocking, failOn, allowed, stale, invalid, warnings };
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
  for (const warning of result.warnings) lines.push(`warning: ${warning}`);
  // one schema change met in several places is one allow entry: each place is named, so the lines are not repeats
  for (const { change, entry } of result.allowed) lines.push(`allowed: ${change.kind} ${change.pointer} (${entry.reason})`);
  for (const entry of result.stale) {
    const value = Object.hasOwn(entry, 'value') ? ` value ${JSON.stringify(entry.value)}` : '';
    lines.push(
      `stale allow entry: ${entry.kind} ${entry.pointer}${value} matches no breaking change since ${input.releasedVersion}; remove it from ${where.allowFile}`,
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
      ...result.blocking.flatMap((c) => allowEntryLines(allowKeyOf(c), '<why no integrated client breaks>').map((l) => `       ${l}`)),
    );
  } else if (result.invalid.length === 0) {
    lines.push(
      `Compatibility gate passed: ${input.changes.length} change(s) since ${input.releasedVersion}, none at --fail-on ${result.failOn} or above without a major version or an allow entry.`,
    );
  }
  return `${lines.join('\n')}\n`;
}
