/**
 * The report of a {@link checkApi} run as text: the operation x status coverage table, the failures, the declared
 * response properties no answer carried (what `paygate contract --spec` prints after its summary).
 */
import type { ApiCheckReport } from './types.js';

/** The operation x status coverage table, one row per operation (`-` = declared, never answered). */
export function formatCoverage(report: ApiCheckReport): string {
  const rows = report.coverage.map((c) => [
    c.operationId,
    `${c.method} ${c.path}`,
    Object.entries(c.statuses)
      .map(([s, n]) => (n > 0 ? `${s}x${n}` : `${s}:-`))
      .join(' '),
  ]);
  const widths = [0, 1].map((i) => Math.max(...rows.map((row) => row[i]!.length), i === 0 ? 9 : 7));
  const header = ['operation'.padEnd(widths[0]!), 'request'.padEnd(widths[1]!), 'statuses (seen x times, - never)'].join('  ');
  return [header, ...rows.map((row) => [row[0]!.padEnd(widths[0]!), row[1]!.padEnd(widths[1]!), row[2]].join('  '))].join('\n');
}

/** Each failure on its own lines: check, operation, status, pointer, message, request. */
export function formatFailures(report: ApiCheckReport): string {
  return report.failures
    .map((f) => `[${f.check}] ${f.operationId} -> ${f.status ?? 'no response'}: ${f.message}\n  at ${f.pointer}\n  request: ${f.request}`)
    .join('\n');
}

/** Declared response properties never seen, one line per response schema. */
export function formatUnseenProperties(report: ApiCheckReport): string {
  return report.unseenProperties.map((u) => `${u.operationId} ${u.status} ${u.mediaType}: ${u.unseen.join(', ')}`).join('\n');
}
