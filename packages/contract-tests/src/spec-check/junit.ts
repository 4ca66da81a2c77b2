/**
 * JUnit XML of a {@link checkApi} run: one testsuite per operation, one testcase per request. `JUnitWriter` writes the
 * file as the run goes (D277 contract checker progress and summary): after each operation the whole document is written to a temporary file and renamed
 * over the report, so a run killed at any moment leaves a valid file with every operation finished so far.
 */
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ApiCheckReport, CheckCase } from './types.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters XML 1.0 does not allow, dropped
const XML_FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g;

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(XML_FORBIDDEN, '');
}

function suiteXml(operationId: string, cases: readonly CheckCase[]): string {
  const failed = cases.filter((c) => c.failures.length > 0).length;
  const time = cases.reduce((sum, c) => sum + c.durationMs, 0) / 1000;
  const testcases = cases.map((c) => {
    const open = `    <testcase classname="${xml(operationId)}" name="${xml(`${c.check}: ${c.request}`)}" time="${(c.durationMs / 1000).toFixed(3)}"`;
    if (c.failures.length === 0) return `${open}/>`;
    const body = c.failures
      .map((f) => `[${f.check}] ${f.operationId} -> ${f.status ?? 'no response'}: ${f.message}\nat ${f.pointer}\nrequest: ${f.request}`)
      .join('\n\n');
    return `${open}>\n      <failure message="${xml(c.failures[0]!.check)} at ${xml(c.failures[0]!.pointer)}">${xml(body)}</failure>\n    </testcase>`;
  });
  return `  <testsuite name="${xml(operationId)}" tests="${cases.length}" failures="${failed}" time="${time.toFixed(3)}">\n${testcases.join('\n')}\n  </testsuite>`;
}

function document(name: string, byOperation: ReadonlyMap<string, readonly CheckCase[]>): string {
  const all = [...byOperation.values()].flat();
  const failures = all.filter((c) => c.failures.length > 0).length;
  const suites = [...byOperation].map(([id, cases]) => suiteXml(id, cases));
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${xml(name)}" tests="${all.length}" failures="${failures}">\n${suites.join('\n')}\n</testsuites>\n`;
}

function group(cases: readonly CheckCase[]): Map<string, CheckCase[]> {
  const byOperation = new Map<string, CheckCase[]>();
  for (const c of cases) byOperation.set(c.operationId, [...(byOperation.get(c.operationId) ?? []), c]);
  return byOperation;
}

export function toJUnit(report: ApiCheckReport, name = 'paygate contract --spec'): string {
  return document(name, group(report.cases));
}

/** A JUnit file kept valid while the run goes: `operation()` after each operation, `finish()` with the report. */
export class JUnitWriter {
  private readonly byOperation = new Map<string, CheckCase[]>();

  constructor(
    private readonly file: string,
    private readonly name = 'paygate contract --spec',
  ) {
    mkdirSync(path.dirname(file), { recursive: true });
    this.write();
  }

  operation(operationId: string, cases: readonly CheckCase[]): void {
    this.byOperation.set(operationId, [...cases]);
    this.write();
  }

  finish(report: ApiCheckReport): void {
    this.byOperation.clear();
    for (const [id, cases] of group(report.cases)) this.byOperation.set(id, cases);
    this.write();
  }

  private write(): void {
    const temporary = `${this.file}.${process.pid}.tmp`;
    writeFileSync(temporary, document(this.name, this.byOperation));
    renameSync(temporary, this.file);
  }
}
