/**
 * Global setup of the contract suite (wired in the root vitest.config.ts): provides a fresh coverage directory to the
 * test files and, after every file has run, prints the operation x status coverage table and fails the run when a
 * declared cell was missed without an allow-list entry or an undeclared status was seen.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { coverageReport, formatReport, mergeDumps } from './coverage.js';

export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(path.join(tmpdir(), 'paygate-contract-coverage-'));
  project.provide('paygateCoverageDir', dir);
  return () => {
    const merged = mergeDumps(dir);
    rmSync(dir, { recursive: true, force: true });
    if (Object.keys(merged.hits).length === 0) return; // nothing ran (e.g. a filtered run of a non-contract file)
    const report = coverageReport(merged.hits, merged.undeclared);
    process.stdout.write(`${formatReport(report)}\n`);
    const filtered = process.env['PAYGATE_CONTRACT_PARTIAL'] === '1';
    if (!report.ok && !filtered) {
      process.exitCode = 1;
      throw new Error(
        `contract coverage incomplete: ${report.missing.length} missing cell(s), ${report.undeclared.length} undeclared status(es)`,
      );
    }
  };
}
