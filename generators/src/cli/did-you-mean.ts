/**
 * "Did you mean ...?" for a mistyped command or flag (decision D290, Words for merchants: the CLI corrects typos).
 * The distance is `leven`'s (Levenshtein); a word is suggested when it is at most two edits away (a third of the
 * typed word's length for long words; fewer edits than the word has letters), or when the typed word is the start of
 * exactly one candidate (`gen` -> `generate`).
 */
import leven from 'leven';

/** The closest candidate to `typed`, or undefined when none is close enough to be what was meant. */
export function closestMatch(typed: string, candidates: readonly string[]): string | undefined {
  const bare = (word: string) => word.replace(/^-+/, '').toLowerCase();
  const word = bare(typed);
  if (word === '') return undefined;
  const prefixed = candidates.filter((c) => word.length >= 3 && bare(c).startsWith(word));
  if (prefixed.length === 1) return prefixed[0];
  const limit = Math.min(word.length - 1, Math.max(2, Math.floor(word.length / 3)));
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = leven(word, bare(candidate));
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

/** ` Did you mean X?` for a sentence about `typed`, or '' when nothing is close. */
export function didYouMean(typed: string, candidates: readonly string[]): string {
  const match = closestMatch(typed, candidates);
  return match === undefined ? '' : ` Did you mean ${match}?`;
}

/** The flags a command's usage text names (`--base-url`, `--workers`, ...), in order, once each. */
export function flagsOf(usage: string): string[] {
  return [...new Set([...usage.matchAll(/(?<![\w-])--[a-z][a-z0-9-]*/g)].map((m) => m[0]))];
}

/**
 * node:util parseArgs says `Unknown option '--wrkers'`; a command wraps that in its UsageError. This rewrites it as
 * `Unknown flag --wrkers. Did you mean --workers?` with the flags of the command's usage, and leaves any other message
 * as it is.
 */
export function explainUnknownFlag(message: string, flags: readonly string[]): string {
  return message.replace(/Unknown option '([^']+)'/g, (_all, flag: string) => `Unknown flag ${flag}.${didYouMean(flag, flags)}`);
}
