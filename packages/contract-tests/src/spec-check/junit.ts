/** JUnit XML of a {@link checkApi} report: one testsuite per operation, one testcase per check run. */
import type { ApiCheckReport } from './check-api.js';

// biome-ignore lint/suspicious/noControlCharactersInRegex: the control characters XML 1.0 does not allow, dropped
const XML_FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g;

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(XML_FORBIDDEN, '');
}

export function toJUnit(report: ApiCheckReport, name = 'paygate contract --spec'): string {
  const byOperation = new Map<string, ApiCheckReport['cases']>();
  for (const c of report.cases) byOperation.set(c.operationId, [...(byOperation.get(c.operationId) ?? []), c]);
  const suites = [...byOperation].map(([operationId, cases]) => {
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
  });
  const total = report.cases.length;
  const failures = report.cases.filter((c) => c.failures.length > 0).length;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="${xml(name)}" tests="${total}" failures="${failures}">\n${suites.join('\n')}\n</testsuites>\n`;
}
