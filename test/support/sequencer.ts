/**
 * The order test files start in: longest first, so the long ones (the packaging install, the Chromium docs tests,
 * the fault tests' gateways) do not start last and hold the run open on one worker while the others idle.
 * Vitest's own order does this from its results cache, which a fresh clone (CI) does not have: there it falls back to
 * the largest file first, and a large table-driven file of milliseconds went before a short file of minutes.
 * Here a file's duration comes from Vitest's cache when it has one, else from test/support/file-durations.json
 * (written by `npm run test:profile -- --write-durations` on a whole-suite run), else the file is taken as short.
 * Failed files from the last run still go first, as in Vitest's own order.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds per test file (path from the repository root), from the last whole-suite profile. */
function recordedDurations(): Record<string, number> {
  try {
    return JSON.parse(readFileSync(new URL('./file-durations.json', import.meta.url), 'utf8')) as Record<string, number>;
  } catch {
    return {};
  }
}

export class LongestFirstSequencer extends BaseSequencer {
  private readonly recorded = recordedDurations();

  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const estimate = (spec: TestSpecification): { failed: boolean; ms: number } => {
      const relative = path.relative(root, spec.moduleId).split(path.sep).join('/');
      const cached = this.ctx.cache.getFileTestResults(`${spec.project.name}:${relative}`);
      if (cached) return { failed: cached.failed, ms: cached.duration };
      return { failed: false, ms: (this.recorded[relative] ?? 0) * 1000 };
    };
    const keyed = files.map((spec) => ({ spec, ...estimate(spec) }));
    // a stable sort: files of equal estimate keep Vitest's order (the larger file first)
    const base = await super.sort(files);
    const position = new Map(base.map((spec, i) => [spec, i]));
    return keyed
      .sort((a, b) => Number(b.failed) - Number(a.failed) || b.ms - a.ms || position.get(a.spec)! - position.get(b.spec)!)
      .map((k) => k.spec);
  }
}
