/**
 * What scripts/decisions/split.ts writes from a decisions table (D450 one file per decision and a generated index): one record per row (the table's columns
 * `# | The original specification says | Decision | Reason | Anchor` become the record's Context, Decision, Why and
 * Where; the `##` heading above the table its section) and one note per `##` section that holds no decisions table
 * (its text verbatim). Pure: the caller reads and writes the files.
 */
import { type DecisionRecord, decisionFileName, renderDecisionRecord, slugOf } from '../../generators/src/emit/decision-records.js';
import { parseDecisions, parseMarkdownTables } from '../../generators/src/emit/docs-site.js';

export interface SplitInput {
  /** The markdown holding decisions tables (docs/decisions.md before D450, or a branch's copy of it). */
  table: string;
  /** The records already written, by id: their file name and title (a title written in a file wins). */
  existing: ReadonlyMap<string, { file: string; title: string }>;
  /** Titles for rows that have no file yet (docs/decisions/titles.json). */
  titles: Readonly<Record<string, string>>;
}

export interface SplitFile {
  file: string;
  text: string;
  /** The decision's id; undefined for a prose note. */
  id?: string;
}

export type SplitResult = { ok: true; files: SplitFile[] } | { ok: false; untitled: string[] };

/** Headings of the `##` sections that hold no decisions table, with their text (fenced code kept as written). */
export function proseSections(markdown: string): { heading: string; body: string }[] {
  const sections: { heading: string; lines: string[] }[] = [];
  let inFence = false;
  for (const line of markdown.split(/\r?\n/)) {
    if (/^\s*```/.test(line)) inFence = !inFence;
    const heading = inFence ? null : /^## (.+?)\s*$/.exec(line);
    if (heading !== null) sections.push({ heading: heading[1]!, lines: [] });
    else sections.at(-1)?.lines.push(line);
  }
  const decisionHeadings = new Set(parseDecisionsSafe(markdown).map((d) => d.group));
  return sections
    .filter((s) => !decisionHeadings.has(s.heading))
    .map((s) => ({ heading: s.heading, body: s.lines.join('\n').trim() }))
    .filter((s) => s.body !== '');
}

/** The rows of every decisions table; none when the markdown has no such table (the generated index). */
function parseDecisionsSafe(markdown: string) {
  const hasTable = parseMarkdownTables(markdown).some((t) => t.header[0] === '#' && t.header.length === 5);
  return hasTable ? parseDecisions(markdown) : [];
}

/** The files to write, or the ids of the rows that have neither a file nor a title. */
export function splitDecisionsTable(input: SplitInput): SplitResult {
  const rows = parseDecisionsSafe(input.table);
  // no decisions table: the generated index (or an empty file), nothing to split, its sections are not notes
  if (rows.length === 0) return { ok: true, files: [] };
  const untitled = rows.filter((row) => !input.existing.has(row.id) && !(input.titles[row.id] ?? '').trim()).map((row) => row.id);
  if (untitled.length > 0) return { ok: false, untitled };
  const files: SplitFile[] = rows.map((row) => {
    const known = input.existing.get(row.id);
    const title = known?.title ?? input.titles[row.id]!.trim();
    const record: DecisionRecord = { ...row, title };
    return { id: row.id, file: known?.file ?? decisionFileName(row.id, title), text: renderDecisionRecord(record) };
  });
  for (const section of proseSections(input.table))
    files.push({ file: `${slugOf(section.heading)}.md`, text: `# ${section.heading}\n\n${section.body}\n` });
  return { ok: true, files };
}

/**
 * What of `table` the records and notes do not hold: each row's cell missing from its record's section (compared
 * exactly), a prose section missing from its note, an intro line missing from the index. Empty when nothing was lost.
 */
export function lostText(table: string, records: readonly DecisionRecord[], notes: readonly string[], index: string): string[] {
  const byId = new Map(records.map((r) => [r.id, r]));
  const lost: string[] = [];
  for (const row of parseDecisionsSafe(table)) {
    const record = byId.get(row.id);
    if (record === undefined) {
      lost.push(`${row.id}: no record`);
      continue;
    }
    for (const field of ['group', 'specSays', 'decision', 'reason', 'anchor'] as const)
      if (record[field] !== row[field]) lost.push(`${row.id}: ${field} differs from the row`);
  }
  for (const section of proseSections(table))
    if (!notes.some((note) => note.includes(section.body))) lost.push(`section "${section.heading}": no note holds its text`);
  const intro = table.split(/^## /m)[0] ?? '';
  for (const line of intro.split('\n').map((l) => l.trim()))
    if (line !== '' && !OBSOLETE_INTRO.some((re) => re.test(line)) && !index.includes(line))
      lost.push(`intro line not in the index: ${line}`);
  return lost;
}

/** The table's intro lines the index replaces on purpose: they described the table (its columns, its `\|`). */
const OBSOLETE_INTRO = [
  /^itself in a few places\. This file records/,
  /^`openapi\/` is the contract; this file explains it/,
  /^Every table below has the same columns/,
  /^header row and one row per decision/,
];
