/**
 * Renders a list of changes for people (text, Markdown) and tools (JSON). Each change is one entry at its definition
 * with the places that use it beneath (D104 one diff entry per change, at its definition). The Markdown report is made for a pull-request comment: a count per
 * classification, then at most `top` entries of each section that can fail a build, and a count of the rest (D106 diff markdown report).
 */
import { CLASSIFICATIONS, type Change, type ChangeUse, type Classification } from './types.js';

export const REPORT_FORMATS = ['text', 'json', 'markdown'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export interface DiffReport {
  from: string;
  to: string;
  changes: readonly Change[];
}

export interface ReportOptions {
  /** Markdown: entries shown per section (default 20). */
  top?: number;
}

export const DEFAULT_TOP = 20;

export function countByClassification(changes: readonly Change[]): Record<Classification, number> {
  const counts: Record<Classification, number> = { breaking: 0, unclassified: 0, warning: 0, 'non-breaking': 0, annotation: 0 };
  for (const change of changes) counts[change.classification]++;
  return counts;
}

export function summaryLine(report: DiffReport): string {
  const counts = countByClassification(report.changes);
  return `${report.from} -> ${report.to}: ${CLASSIFICATIONS.map((c) => `${counts[c]} ${c}`).join(', ')}`;
}

export const HEADINGS: Record<Classification, string> = {
  breaking: 'Breaking changes',
  unclassified: 'Unclassified changes (review them)',
  warning: 'Warnings',
  'non-breaking': 'Non-breaking changes',
  annotation: 'Annotations',
};

const useText = (u: ChangeUse) => `${u.where}${u.in ? ` ${u.in}` : ''}`;

/** `used by 3: GET /orders response 200, POST /orders ..., and 1 more`. */
export function usesLine(change: Change, shown = 3): string {
  if (change.useCount === 0) return '';
  const listed = change.uses.slice(0, shown).map(useText);
  const more = change.useCount - listed.length;
  return `used by ${change.useCount}: ${listed.join('; ')}${more > 0 ? `; and ${more} more` : ''}`;
}

function text(report: DiffReport): string {
  const lines = [summaryLine(report)];
  for (const classification of CLASSIFICATIONS) {
    const changes = report.changes.filter((c) => c.classification === classification);
    if (changes.length === 0) continue;
    lines.push('', `${HEADINGS[classification]} (${changes.length}):`);
    for (const c of changes) {
      lines.push(`  ${c.kind}  ${c.document}#${c.pointer}`, `      ${c.message}`);
      const uses = usesLine(c);
      if (uses) lines.push(`      ${uses}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Markdown table cells: no raw pipes or newlines, bounded length. */
const MAX_CELL = 300;
function cell(value: string): string {
  const flat = value.replace(/\r?\n/g, ' ');
  const short = flat.length > MAX_CELL ? `${flat.slice(0, MAX_CELL - 3)}...` : flat;
  return short.replace(/\|/g, '\\|');
}

/** Sections shown in full (up to `top`); the others are counted only. */
const LISTED: readonly Classification[] = ['breaking', 'unclassified', 'warning'];

function markdown(report: DiffReport, options: ReportOptions): string {
  const top = options.top ?? DEFAULT_TOP;
  const counts = countByClassification(report.changes);
  const lines = [
    `# API changes: ${report.from} -> ${report.to}`,
    '',
    `| ${CLASSIFICATIONS.join(' | ')} |`,
    `| ${CLASSIFICATIONS.map(() => '---:').join(' | ')} |`,
    `| ${CLASSIFICATIONS.map((c) => counts[c]).join(' | ')} |`,
  ];
  for (const classification of LISTED) {
    const changes = report.changes.filter((c) => c.classification === classification);
    if (changes.length === 0) continue;
    lines.push(
      '',
      `## ${HEADINGS[classification]} (${changes.length})`,
      '',
      '| Kind | Pointer | Change | Used by |',
      '| --- | --- | --- | --- |',
    );
    for (const c of changes.slice(0, top))
      lines.push(
        `| ${cell(c.kind)} | \`${cell(`${c.document}#${c.pointer}`)}\` | ${cell(c.message)} | ${cell(usesLine(c, 2).replace(/^used by /, ''))} |`,
      );
    if (changes.length > top)
      lines.push('', `... and ${changes.length - top} more ${classification} change(s): \`paygate diff --format text\` lists them all.`);
  }
  const rest = report.changes.length - LISTED.reduce((n, c) => n + counts[c], 0);
  if (rest > 0)
    lines.push('', `${counts['non-breaking']} non-breaking change(s) and ${counts.annotation} annotation(s) are not listed here.`);
  return `${lines.join('\n')}\n`;
}

/** The JSON report's shape (`--format json`). */
export function reportData(report: DiffReport): {
  from: string;
  to: string;
  summary: Record<Classification, number>;
  changes: readonly Change[];
} {
  return { from: report.from, to: report.to, summary: countByClassification(report.changes), changes: report.changes };
}

function json(report: DiffReport): string {
  return `${JSON.stringify(reportData(report), null, 2)}\n`;
}

export function formatReport(report: DiffReport, format: ReportFormat, options: ReportOptions = {}): string {
  return format === 'json' ? json(report) : format === 'markdown' ? markdown(report, options) : text(report);
}
