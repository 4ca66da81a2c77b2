/**
 * What a run prints (D277 contract checker progress and summary): a line per operation as it finishes (outcome, credential set, requests, statuses, failed
 * checks, time), then a summary. Colour only on a terminal (and never with NO_COLOR); piped output is plain text.
 */
import type { ApiCheckReport, CheckEvent, PositiveEvent } from './types.js';

export interface Palette {
  green(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  dim(s: string): string;
}

const plain: Palette = { green: (s) => s, red: (s) => s, yellow: (s) => s, dim: (s) => s };
const ansi = (code: number) => (s: string) => `\u001b[${code}m${s}\u001b[0m`;
const coloured: Palette = { green: ansi(32), red: ansi(31), yellow: ansi(33), dim: ansi(2) };

/** Colour when the stream is a terminal, unless NO_COLOR is set; FORCE_COLOR turns it on. */
export function paletteFor(stream: { isTTY?: boolean } | undefined, env: NodeJS.ProcessEnv): Palette {
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return plain;
  if (env['FORCE_COLOR'] !== undefined && env['FORCE_COLOR'] !== '0') return coloured;
  return stream?.isTTY === true ? coloured : plain;
}

/** The stateful run's line for an operation: its positive answer and the credential set that got it. */
export function positiveLine(e: PositiveEvent, p: Palette = plain): string {
  const status = e.status === undefined ? 'no answer' : String(e.status);
  const mark = e.status !== undefined && e.status < 300 ? p.green('->') : p.yellow('->');
  return p.dim(`  ${e.operationId} ${e.method} ${e.path} ${mark} ${status}${e.credentialSet ? ` as ${e.credentialSet}` : ''}`);
}

/** One line for a finished operation. */
export function operationLine(e: CheckEvent, p: Palette = plain): string {
  const mark = { passed: p.green('ok    '), failed: p.red('FAIL  '), unreached: p.yellow('no 2xx'), skipped: p.dim('skip  ') }[e.outcome];
  const statuses = [...new Set(e.cases.map((c) => c.status).filter((s): s is number => s !== undefined))].sort((a, b) => a - b);
  const failed = [...new Set(e.cases.flatMap((c) => c.failures.map((f) => f.check)))];
  const parts = [
    `${mark} ${e.operationId}`,
    p.dim(`${e.method} ${e.path}`),
    `${e.cases.length} requests`,
    statuses.length > 0 ? `statuses ${statuses.join(',')}` : '',
    e.credentialSet ? `as ${e.credentialSet}` : '',
    failed.length > 0 ? p.red(`failed: ${failed.join(', ')}`) : '',
    e.note ? p.yellow(e.note) : '',
    p.dim(`${e.durationMs} ms`),
  ];
  return parts.filter((s) => s !== '').join('  ');
}

/** The closing summary: counts, the operations without a 2xx, what was left behind, unseen properties. */
export function summary(report: ApiCheckReport, p: Palette = plain): string {
  const by = (o: string) => report.coverage.filter((c) => c.outcome === o).length;
  const lines = [
    `${report.coverage.length} operations: ${by('passed')} passed, ${by('failed')} failed, ${by('unreached')} without a 2xx, ${by('skipped')} skipped; ${report.cases.length} requests, ${report.failures.length} failures in ${(report.durationMs / 1000).toFixed(1)} s (${(report.coverage.length / Math.max(0.001, report.durationMs / 1000)).toFixed(1)} operations/s)`,
  ];
  const unreached = report.coverage.filter((c) => c.outcome === 'unreached').map((c) => c.operationId);
  if (unreached.length > 0) lines.push(p.yellow(`no 2xx reached: ${unreached.join(', ')}`));
  const unseen = report.unseenProperties.filter((u) => u.status.startsWith('2'));
  if (unseen.length > 0)
    lines.push(
      `declared response properties never seen in a 2xx (${unseen.length} schemas; --fail-on-unseen-properties makes them fail):`,
      ...unseen.map((u) => `  ${u.operationId} ${u.status}: ${u.unseen.join(', ')}`),
    );
  if (report.leftBehind.length > 0)
    lines.push(
      p.dim(
        `left on the target (no delete operation for them): ${Object.entries(
          report.leftBehind.reduce<Record<string, number>>((acc, l) => {
            acc[l.key] = (acc[l.key] ?? 0) + 1;
            return acc;
          }, {}),
        )
          .map(([k, n]) => `${n} ${k}`)
          .join(', ')}`,
      ),
    );
  if (report.timedOut) lines.push(p.red('the run stopped at its time bound (--max-time)'));
  return lines.join('\n');
}
