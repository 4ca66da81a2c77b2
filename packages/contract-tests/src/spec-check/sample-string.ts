/**
 * A string a string schema accepts, deterministic: the `format`'s sample, a few plain words, then strings built from
 * the `pattern` by two maintained generators, each candidate checked against the compiled pattern, the length bounds
 * (in code points, as JSON Schema counts) and the caller's check of the whole schema (its `format` among others).
 * fast-check's `stringMatching` knows Unicode classes (`\p{L}`) and escapes; randexp knows what fast-check does not
 * implement (lookarounds, `\b`, back-references; it skips a lookaround, so its string is checked like any other)
 * (D425 the sampler builds pattern strings with fast-check, then randexp, checked against the whole schema).
 */
import fc from 'fast-check';
import randexpModule from 'randexp';

// randexp is CommonJS whose `module.exports` is the class; its types call the class the default export
type RandExp = InstanceType<typeof randexpModule.default>;
const RandExp = randexpModule as unknown as typeof randexpModule.default;
import type { JsonObject } from './samples.js';

const FORMAT_SAMPLES: Readonly<Record<string, string>> = {
  'date-time': '2026-01-02T03:04:05Z',
  date: '2026-01-02',
  time: '03:04:05Z',
  email: 'ada@example.com',
  uri: 'https://paygate-contract.invalid/a',
  url: 'https://paygate-contract.invalid/a',
  uuid: '3f1c2b8e-7d4a-4e59-9b1f-2a6c8d0e5f71',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  hostname: 'paygate-contract.invalid',
  duration: 'P1D',
  byte: 'c2FtcGxl',
  'uri-reference': '/a',
  'json-pointer': '/a',
  regex: '^a$',
};

/** Plain words tried before any generator: a pattern as loose as `^\S+$` gets a readable value. */
const WORDS = ['sample', 'abc', 'a', 'A1', '1', '12345678'];

/** Seeds tried in turn: the same schema gives the same string on every run. */
const SEEDS = [20, 21, 22, 23, 24, 25, 26, 27];

/** The pattern compiled as the validators compile it (`u` flag), undefined when it does not compile. */
function compile(pattern: string | undefined): RegExp | undefined {
  if (pattern === undefined) return undefined;
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return undefined; // not a regular expression the validator could apply either (D206 unsupported patterns dropped with a warning)
  }
}

/** A small seeded generator (mulberry32): randexp's `randInt` made reproducible. */
function seeded(seed: number): (a: number, b: number) => number {
  let state = seed >>> 0;
  return (a, b) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const unit = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return a + Math.floor(unit * (b - a + 1));
  };
}

/** Strings fast-check builds for the pattern, larger sizes when small ones are shorter than `minLength` (AWS's ARNs). */
function* fromFastCheck(re: RegExp, max: number): Generator<string> {
  const maxLength = Number.isFinite(max) ? max : undefined;
  for (const size of ['small', 'medium', 'large', 'xlarge'] as const) {
    let values: string[];
    try {
      values = fc.sample(fc.stringMatching(re, { size, ...(maxLength === undefined ? {} : { maxLength }) }), { seed: 20, numRuns: 50 });
    } catch {
      return; // a construct fast-check does not implement (a lookahead, `\b`), or no string within maxLength
    }
    yield* values;
  }
}

/**
 * Strings randexp builds for the pattern: readable characters first (letters and digits for `.` and negated
 * classes), then all printable ASCII; unbounded repetitions stretched to reach `minLength`.
 */
function* fromRandExp(re: RegExp, min: number, max: number): Generator<string> {
  const stretches = [...new Set([8, min, 2 * min].map((n) => Math.min(Math.max(n, 1), Number.isFinite(max) ? max : n)))];
  for (const readable of [true, false]) {
    for (const stretch of stretches) {
      for (const seed of SEEDS) {
        let generator: RandExp;
        try {
          generator = new RandExp(re);
        } catch {
          return; // a pattern randexp's parser refuses (a lookbehind)
        }
        generator.max = stretch;
        generator.randInt = seeded(seed);
        if (readable) {
          generator.defaultRange.subtract(32, 126);
          generator.defaultRange.add(48, 57).add(65, 90).add(97, 122);
        }
        yield generator.gen();
      }
    }
  }
}

/**
 * A string `s` accepts: `fits` is the caller's check of the whole schema (true when it has none); the first candidate
 * that matches the pattern, the length bounds and `fits`, else a plain string of a length within the bounds.
 */
export function stringSample(s: JsonObject, fits: (value: string) => boolean = () => true): string {
  const format = typeof s['format'] === 'string' ? s['format'] : undefined;
  const min = typeof s['minLength'] === 'number' ? s['minLength'] : 1;
  const max = typeof s['maxLength'] === 'number' ? s['maxLength'] : Number.POSITIVE_INFINITY;
  const re = compile(typeof s['pattern'] === 'string' ? s['pattern'] : undefined);
  const length = (v: string): number => [...v].length;
  const ok = (v: string): boolean => length(v) >= min && length(v) <= max && (re === undefined || re.test(v)) && fits(v);
  const formatSample = format === undefined ? undefined : FORMAT_SAMPLES[format];
  if (formatSample !== undefined && ok(formatSample)) return formatSample;
  if (re !== undefined) {
    for (const candidate of [...WORDS, 'x'.repeat(min)]) if (ok(candidate)) return candidate;
    for (const candidate of fromFastCheck(re, max)) if (ok(candidate)) return candidate;
    for (const candidate of fromRandExp(re, min, max)) if (ok(candidate)) return candidate;
  }
  // no pattern, or none of its strings fits: the format's sample if it has one (a pattern the format contradicts), else
  // a plain string within the length bounds
  if (formatSample !== undefined && re === undefined) return formatSample;
  return 'sample'.padEnd(min, 'x').slice(0, Math.max(min, Math.min(max, 6)));
}
