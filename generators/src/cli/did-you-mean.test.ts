import { describe, expect, it } from 'vitest';
import { closestMatch, explainUnknownFlag, flagsOf } from './did-you-mean.js';

const COMMANDS = ['generate', 'check', 'docs', 'serve', 'contract', 'diff', 'release', 'listen', 'trigger'];

describe('closestMatch (D290)', () => {
  it.each([
    ['genrate', COMMANDS, 'generate'],
    ['generat', COMMANDS, 'generate'],
    ['gen', COMMANDS, 'generate'],
    ['chekc', COMMANDS, 'check'],
    ['lisen', COMMANDS, 'listen'],
    ['SERVE', COMMANDS, 'serve'],
    ['--wrkers', ['--workers', '--help'], '--workers'],
    ['--inptu', ['--input', '--out', '--targets'], '--input'],
    ['-input', ['--input', '--out'], '--input'],
    ['--base-ulr', ['--base-url', '--client-id'], '--base-url'],
  ])('%s -> %s', (typed, candidates, expected) => {
    expect(closestMatch(typed, candidates)).toBe(expected);
  });

  it.each([
    ['deploy', COMMANDS],
    ['--bogus', ['--workers', '--help']],
    ['x', COMMANDS],
    ['', COMMANDS],
    // a prefix shared by two candidates suggests neither
    ['--c', ['--check', '--client-id']],
  ])('%s: nothing close enough', (typed, candidates) => {
    expect(closestMatch(typed, candidates)).toBeUndefined();
  });
});

describe('flagsOf and explainUnknownFlag', () => {
  it('reads the flags of a usage text once each, not words with dashes inside', () => {
    expect(flagsOf('Usage: paygate serve [--workers N|auto]\n  --workers N   re-run --workers; x--y no\n  --help')).toEqual([
      '--workers',
      '--help',
    ]);
  });

  it.each([
    ["Unknown option '--wrkers'", 'Unknown flag --wrkers. Did you mean --workers?'],
    ["Unknown option '--bogus'", 'Unknown flag --bogus.'],
    ['takes only --workers. ' + "Unknown option '-x'", 'takes only --workers. Unknown flag -x.'],
    ['--base-url is required', '--base-url is required'],
  ])('%j -> %j', (message, expected) => {
    expect(explainUnknownFlag(message, ['--workers', '--help'])).toBe(expected);
  });
});
