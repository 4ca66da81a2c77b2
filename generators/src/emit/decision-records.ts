/**
 * Decision records: one short Markdown file per decision (D450 one file per decision and a generated index), the source of the docs site's decisions page when
 * `paygate docs --decisions` names a folder (default `docs/decisions/` when it exists). A record reads
 *
 *   ---
 *   section: D. Behaviour decided while building the reference gateway
 *   ---
 *
 *   # D180: onRequest hook and the one-layer scaffold
 *
 *   ## Context
 *   What the specification (or the issue) says.
 *
 *   ## Decision
 *   ...
 *
 *   ## Why
 *   ...
 *
 *   ## Where
 *   The files and tests that carry it, and the gateways or standards it follows.
 *
 * The file is named `<id>-<slug of the title>.md` (`decisionFileName`). A Markdown file of the folder without a
 * `# <id>: <title>` first heading (a README, a prose note such as the settlement arithmetic) is not a record.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import type { DecisionEntry } from './docs-site.js';

/** The record's sections, in file order, and the entry field each one fills. */
export const RECORD_SECTIONS = [
  ['Context', 'specSays'],
  ['Decision', 'decision'],
  ['Why', 'reason'],
  ['Where', 'anchor'],
] as const satisfies readonly (readonly [string, keyof DecisionEntry])[];

/** A decision with the title a reader finds it by. */
export type DecisionRecord = DecisionEntry & { title: string };

const HEADING = /^# (\S+?): (.+)$/;

/** `Order's one-layer scaffold (D180 onRequest hook and the one-layer scaffold)` -> `orders-one-layer-scaffold-d180`: lower case, ASCII letters and digits, single dashes, at most 60 characters. */
export function slugOf(title: string): string {
  const slug = title
    .normalize('NFKD')
    .toLowerCase()
    .replace(/['\u2019]/g, '')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug.slice(0, 60).replace(/-+$/, '') || 'decision';
}

/** `D180-onrequest-hook-and-the-one-layer-scaffold.md`: the id as cited (never padded), then the title's slug. */
export function decisionFileName(id: string, title: string): string {
  return `${id}-${slugOf(title)}.md`;
}

/** The record's Markdown text (deterministic: `parseDecisionRecord` gives the record back). */
export function renderDecisionRecord(record: DecisionRecord): string {
  for (const [name, field] of [['id', 'id'], ['title', 'title'], ...RECORD_SECTIONS] as const) {
    if (record[field].trim() === '') throw new Error(`decision ${record.id || '?'}: its ${name} is empty`);
  }
  if (/\s|:/.test(record.id)) throw new Error(`decision id "${record.id}" has a space or a colon`);
  if (/\n/.test(record.title)) throw new Error(`decision ${record.id}: its title is more than one line`);
  const front = record.group === '' ? '' : `---\n${stringifyYaml({ section: record.group }, { lineWidth: 0 })}---\n\n`;
  const sections = RECORD_SECTIONS.map(([name, field]) => `## ${name}\n\n${record[field].trim()}\n`).join('\n');
  return `${front}# ${record.id}: ${record.title.trim()}\n\n${sections}`;
}

/** The front matter (`---` ... `---` at the very start) and the text after it. */
function splitFrontMatter(text: string, where: string): { front: Record<string, unknown>; body: string } {
  const match = /^---\r?\n([\s\S]*?)\r?\n---\r?\n/.exec(text);
  if (match === null) return { front: {}, body: text };
  const front: unknown = parseYaml(match[1] ?? '');
  if (front !== null && (typeof front !== 'object' || Array.isArray(front)))
    throw new Error(`${where}: the front matter is not a YAML mapping`);
  return { front: (front ?? {}) as Record<string, unknown>, body: text.slice(match[0].length) };
}

/** True when the text is a decision record (its first heading is `# <id>: <title>`). */
export function isDecisionRecord(text: string): boolean {
  const { body } = splitFrontMatter(text, '');
  const first = body.split(/\r?\n/).find((line) => line.trim() !== '');
  return first !== undefined && HEADING.test(first);
}

/** Reads one record; `where` (its file) names it in errors, which say what to fix. */
export function parseDecisionRecord(text: string, where: string): DecisionRecord {
  const { front, body } = splitFrontMatter(text, where);
  const lines = body.split(/\r?\n/);
  const start = lines.findIndex((line) => line.trim() !== '');
  const heading = HEADING.exec(lines[start] ?? '');
  if (heading === null)
    throw new Error(`${where}: the first line must be the heading "# <id>: <title>", e.g. "# D180: One-layer scaffold"`);
  const found = new Map<string, string[]>();
  let current: string[] | undefined;
  for (const line of lines.slice(start + 1)) {
    const section = /^## (.+?)\s*$/.exec(line);
    if (section !== null && RECORD_SECTIONS.some(([name]) => name === section[1])) {
      if (found.has(section[1]!)) throw new Error(`${where}: the section "## ${section[1]}" appears twice`);
      current = [];
      found.set(section[1]!, current);
    } else if (current !== undefined) {
      current.push(line);
    } else if (line.trim() !== '') {
      throw new Error(`${where}: text before the first section; put it under "## Context"`);
    }
  }
  const section = typeof front.section === 'string' ? front.section : '';
  const record: DecisionRecord = {
    id: heading[1]!,
    title: heading[2]!.trim(),
    group: section,
    specSays: '',
    decision: '',
    reason: '',
    anchor: '',
  };
  for (const [name, field] of RECORD_SECTIONS) {
    const value = found.get(name)?.join('\n').trim() ?? '';
    if (value === '')
      throw new Error(
        `${where}: the section "## ${name}" is missing or empty (a record has ${RECORD_SECTIONS.map(([n]) => n).join(', ')})`,
      );
    record[field] = value;
  }
  return record;
}

/** Orders ids as a reader counts them: A1, A2, A10, B1, D9, D10. */
export const compareDecisionIds = (a: string, b: string): number => a.localeCompare(b, 'en', { numeric: true });

/** Every record of a folder (files `*.md` whose first heading is `# <id>: <title>`), ordered by id; ids are unique and match their file names. */
export function readDecisionRecords(dir: string): DecisionRecord[] {
  const records = readdirSync(dir)
    .filter((file) => file.endsWith('.md'))
    .flatMap((file) => {
      const text = readFileSync(path.join(dir, file), 'utf8');
      if (!isDecisionRecord(text)) return [];
      const record = parseDecisionRecord(text, path.join(dir, file));
      if (!file.startsWith(`${record.id}-`) && file !== `${record.id}.md`)
        throw new Error(`${path.join(dir, file)}: the file of ${record.id} must be named ${decisionFileName(record.id, record.title)}`);
      return [{ file, record }];
    })
    .sort((a, b) => compareDecisionIds(a.record.id, b.record.id));
  for (let i = 1; i < records.length; i++) {
    if (records[i]!.record.id === records[i - 1]!.record.id)
      throw new Error(`${dir}: ${records[i]!.record.id} has two files, ${records[i - 1]!.file} and ${records[i]!.file}`);
  }
  return records.map(({ record }) => record);
}

/** The file name of every record of a folder, by id. */
export function decisionFiles(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.md'))) {
    const text = readFileSync(path.join(dir, file), 'utf8');
    if (isDecisionRecord(text)) files.set(parseDecisionRecord(text, path.join(dir, file)).id, file);
  }
  return files;
}

/**
 * The decisions at `location`: a folder's records (D450 one file per decision and a generated index) or a Markdown file's tables; undefined when nothing is there.
 * Without `location`, `docs/decisions/` under `cwd` when it is a folder holding records, else `docs/decisions.md`.
 */
export function readDecisionsSource(
  cwd: string,
  location?: string,
): { decisions: DecisionRecord[] } | { decisionsMarkdown: string } | undefined {
  const candidates = location === undefined ? ['docs/decisions', 'docs/decisions.md'] : [location];
  for (const candidate of candidates) {
    const full = path.resolve(cwd, candidate);
    if (!existsSync(full)) continue;
    if (statSync(full).isDirectory()) {
      const decisions = readDecisionRecords(full);
      // by default, a folder without records (a project's own notes) does not hide a decisions.md beside it
      if (decisions.length > 0 || location !== undefined) return { decisions };
      continue;
    }
    return { decisionsMarkdown: readFileSync(full, 'utf8') };
  }
  return undefined;
}
