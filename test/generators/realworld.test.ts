/**
 * Real-world specs nobody here wrote (test/fixtures/realworld, sources and licences in its README): each is
 * generated (contract, server, client; webhooks when it declares webhooks; the Zod plugin's module but on the largest,
 * ZOD_LARGE_SPECS) and the output compiled with `tsc --noEmit` under the strict tsconfig, through the shared harness
 * (support/compile-generated.ts; OpenAI in the directory the events test compiles it in, support/openai-project.ts).
 * Why the Zod module here: one generation and one compile per spec instead of a second project of the same contract
 * in the Zod plugin's test (docs/benchmarks.md, "npm test: wall time and CPU"). Two specs at a time (the machine is
 * shared), each bounded in time; the timings are printed.
 */
import pLimit from 'p-limit';
import { describe, expect, it } from 'vitest';
import { zodPlugin } from '../../generators/src/pipeline.js';
import { REALWORLD_SPECS, ZOD_LARGE_SPECS } from '../fixtures/realworld/specs.js';
import { generateAndCompile, type CompileOutcome } from './support/compile-generated.js';
import { OPENAI } from './support/openai-project.js';

const limit = pLimit(2);
/** Started once, two at a time; each test awaits its own. */
const outcomes = new Map<string, Promise<CompileOutcome>>(
  REALWORLD_SPECS.map((spec) => {
    const outcome = limit(() =>
      generateAndCompile({
        openapi: spec.openapi,
        targets: spec.targets,
        label: spec.name,
        ...(spec.lint === undefined ? {} : { lint: spec.lint }),
        ...(ZOD_LARGE_SPECS.has(spec.name) ? {} : { plugins: [zodPlugin()], maxOldSpaceMiB: 6144 }),
        // compiled in the directory the events test compiles OpenAI in (D465 one OpenAI project directory for the real-world and events tests)
        ...(spec.openapi === OPENAI.openapi ? { shareDir: OPENAI.shareDir } : {}),
      }),
    );
    // A refusal fails that spec's test when it awaits it, not the run as an unhandled rejection before then.
    outcome.catch(() => undefined);
    return [spec.name, outcome];
  }),
);

describe.each(REALWORLD_SPECS)('real-world spec $name', (spec) => {
  it(`${spec.label}: generates and compiles under the strict tsconfig`, { timeout: 300_000 }, async () => {
    const outcome = await outcomes.get(spec.name)!;
    console.log(
      `${spec.name}: generate ${(outcome.generateMs / 1000).toFixed(1)} s, tsc --noEmit ${(outcome.tscMs / 1000).toFixed(1)} s (${spec.targets.join(', ')})`,
    );
    expect(outcome.result.model.operations).toHaveLength(spec.operations);
    expect(new Set(outcome.result.model.operations.map((o) => o.operationId)).size).toBe(spec.operations);
    expect(outcome.result.translatedPatterns).toHaveLength(spec.translatedPatterns);
    expect(outcome.result.files.map((f) => f.path.split('/').slice(-2).join('/'))).toEqual(
      expect.arrayContaining(['server/request-validators.gen.ts', 'client/client.gen.ts', 'contract/types.gen.ts']),
    );
    expect(outcome.diagnostics).toBe('');
    expect(outcome.tscCode).toBe(0);
  });
});

describe.each(REALWORLD_SPECS.filter((spec) => !ZOD_LARGE_SPECS.has(spec.name)))('the Zod plugin on $name', (spec) => {
  it('generates zod/schemas.gen.ts, which compiles under the strict tsconfig with the rest of the project', {
    timeout: 300_000,
  }, async () => {
    const outcome = await outcomes.get(spec.name)!;
    const file = outcome.result.files.find((f) => f.path === 'generated/zod/schemas.gen.ts');
    expect(file?.contents.split('\n')[1]).toBe('// Written by the zod plugin.');
    for (const schema of outcome.result.model.schemas.slice(0, 5))
      expect(file?.contents).toContain(`${JSON.stringify(schema.name).replace(/^"(\d+)"$/, '$1')}>`);
    expect(outcome.diagnostics).toBe('');
    expect(outcome.tscCode).toBe(0);
  });
});
