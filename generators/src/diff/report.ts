/** Renders a list of changes for people (text, Markdown) and tools (JSON). */
import { CLASSIFICATIONS, type Change, type Classification } from './types.js';

export const REPORT_FORMATS = ['text', 'json', 'markdown'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

export interface DiffReport {
  from: string;
  to: string;
  changes: readonly Change[];
}

export function countByClassification(changes: readonly Change[]): Record<Classification, number> {
  const counts: Record<Classification, number> = { breaking: 0, 'non-breaking': 0, annotation: 0 };
  for (const change of changes) counts[change.classification]++;
  return counts;
}

export function summaryLine(report: DiffReport): string {
  const counts = countByClassification(report.changes);
  return `${report.from} -> ${report.to}: ${counts.breaking} breaking, ${counts['non-breaking']} non-breaking, ${counts.annotation} annotation`;
}

const HEADINGS: Record<Classification, string> = { breaking: 'Breaking changes', 'non-breaking': 'Non-breaking changes', annotation: 'Annotations' };

function text(report: DiffReport): string {
  const lines = [summaryLine(report)];
  for (const classification of CLASSIFICATIONS) {
    const changes = report.changes.filter((c) => c.classification === classification);
    if (changes.length === 0) continue;
    lines.push('', `${HEADINGS[classification]} (${changes.length}):`);
    for (const c of changes) lines.push(`  ${c.kind}  ${c.document}#${c.pointer}`, `      ${c.message}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Markdown table cells: no raw pipes or newlines. */
function cell(value: string): string {
  return value.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function markdown(report: DiffReport): string {
  const lines = [`# API changes: ${report.from} -> ${report.to}`, '', summaryLine(report)];
  for (const classification of CLASSIFICATIONS) {
    const changes = report.changes.filter((c) => c.classification === classification);
    if (changes.length === 0) continue;
    lines.push('', `## ${HEADINGS[classification]}`, '', '| Kind | Pointer | Change |', '| --- | --- | --- |');
    for (const c of changes) lines.push(`| ${cell(c.kind)} | \`${cell(`${c.document}#${c.pointer}`)}\` | ${cell(c.message)} |`);
  }
  return `${lines.join('\n')}\n`;
}

/** The JSON report's shape (`--format json`). */
export function reportData(report: DiffReport): { from: string; to: string; summary: Record<Classification, number>; changes: readonly Change[] } {
  return { from: report.from, to: report.to, summary: countByClassification(report.changes), changes: report.changes };
}

function json(report: DiffReport): string {
  return `${JSON.stringify(reportData(report), null, 2)}\n`;
}

export function formatReport(report: DiffReport, format: ReportFormat): string {
  return format === 'json' ? json(report) : format === 'markdown' ? markdown(report) : text(report);
}
