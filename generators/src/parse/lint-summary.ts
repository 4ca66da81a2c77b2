/**
 * Lint output a person can read (D373 lint warnings grouped per rule): a spec with thousands of warnings (GitHub's has 2,911) gets one entry per rule,
 * with its count, its first message and its first three locations; the full list, one per line, on request
 * (`--lint-details`).
 */
import { formatProblem, type LintProblem } from './openapi.js';

/** How many locations each rule's entry names. */
export const LOCATIONS_PER_RULE = 3;

export interface LintRuleSummary {
  ruleId: string;
  severity: LintProblem['severity'];
  count: number;
  /** The first problem's message (the others usually differ only in the name they cite). */
  message: string;
  /** The first {@link LOCATIONS_PER_RULE} locations, in the order the linter reported them. */
  locations: string[];
}

/** One entry per rule (and severity), the most frequent first, ties by rule id. */
export function summarizeLint(problems: readonly LintProblem[]): LintRuleSummary[] {
  const byRule = new Map<string, LintRuleSummary>();
  for (const p of problems) {
    const key = `${p.severity}\u0000${p.ruleId}`;
    const entry = byRule.get(key);
    if (entry === undefined) {
      byRule.set(key, { ruleId: p.ruleId, severity: p.severity, count: 1, message: p.message, locations: [p.location] });
      continue;
    }
    entry.count += 1;
    if (entry.locations.length < LOCATIONS_PER_RULE) entry.locations.push(p.location);
  }
  return [...byRule.values()].sort((a, b) => b.count - a.count || (a.ruleId < b.ruleId ? -1 : a.ruleId > b.ruleId ? 1 : 0));
}

/**
 * The lines printed for `problems` (already filtered to what is shown, e.g. the warnings): the summary per rule, or
 * with `details` every problem on its own line. No trailing newlines; indented by the caller.
 */
export function formatLintSummary(problems: readonly LintProblem[], options: { details: boolean; what?: string }): string[] {
  if (problems.length === 0) return [];
  const what = options.what ?? 'lint warning(s)';
  if (options.details) return [`${problems.length} ${what}:`, ...problems.map((p) => `  ${formatProblem(p)}`)];
  const rules = summarizeLint(problems);
  const lines = [`${problems.length} ${what} from ${rules.length} rule(s) (--lint-details lists every one):`];
  for (const rule of rules) {
    const more = rule.count - rule.locations.length;
    lines.push(`  ${rule.ruleId} (${rule.count}): ${rule.message}`);
    lines.push(`    at ${rule.locations.join(', ')}${more > 0 ? ` and ${more} more` : ''}`);
  }
  return lines;
}
