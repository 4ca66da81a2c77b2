/**
 * The mutation test of `paygate contract --spec` (D278 mutants of the reference gateway), one mode per test file (two files: two workers): each planted
 * defect of mutants.ts on an in-process gateway of its own, checked with nothing but a partner and a merchant
 * credential; every mutant must be killed (a named failure). The run stops at its first failure (`failFast`), so a
 * mutant costs the requests up to the one that shows it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { LEAKED_SECRET, MUTANTS, mutant } from './mutants.js';
import { runChecker, type Mode } from './run.js';

/** The mutation test of one mode: every mutant of {@link MUTANTS}, each on a gateway of its own, a name per mutant in the output. */
export function mutationSuite(mode: Mode): void {
  const lines: string[] = [];
  afterAll(() => {
    console.log(`\npaygate contract --spec mutation test, ${mode} mode (${lines.length} mutants):\n${lines.join('\n')}\n`);
  });
  describe(`mutation test, ${mode} mode (D278)`, () => {
    it.each(MUTANTS.map((m) => [m.name, m] as const))(
      '%s is caught',
      async (name, m) => {
        const started = performance.now();
        const equivalent = mode === 'production' && m.production === 'equivalent';
        try {
          const { report, wire } = await runChecker(mode, {
            failFast: true,
            activate: () => (mutant.active = name),
            // the equivalence is shown by what the stateful run reads: the negative sweep adds nothing to it
            ...(equivalent ? { checks: ['positive', 'stateful'] as const } : {}),
          });
          const first = report.failures[0];
          const seconds = ((performance.now() - started) / 1000).toFixed(1);
          if (equivalent) {
            // the serializer strips the undeclared column: it never reaches a client (nothing for a checker to see)
            lines.push(
              `  ${name.padEnd(30)} equivalent: never on the wire (the serializer, D142)  ${report.cases.length} requests, ${seconds} s`,
            );
            expect(wire).not.toContain(LEAKED_SECRET);
            return;
          }
          lines.push(
            `  ${name.padEnd(30)} caught by ${first?.check ?? 'NOTHING'} at ${first?.operationId ?? '-'}  ${report.cases.length} requests, ${seconds} s`,
          );
          expect(report.ok, `${name} (${m.defect}) survived ${report.cases.length} requests`).toBe(false);
        } finally {
          mutant.active = undefined;
        }
      },
      120_000,
    );
  });
}
