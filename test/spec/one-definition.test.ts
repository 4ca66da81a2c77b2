/**
 * One definition each of the JSON helpers every package uses (what a JSON object is, JSON Pointer escaping, the
 * JSON Schema keywords that hold subschemas): a second copy drifts (the request validators' copy of the keyword
 * table once lacked `$defs`). Two homes exist on purpose, one per layer: `@paygate/contract/json` for the runtimes
 * and `generators/src/util/json.ts` for the generators, which run from source before any package is built; this
 * test keeps the two equal and fails on a third.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const HOMES = ['generators/src/util/json.ts', 'packages/contract/src/json.ts'];

/** Tracked TypeScript files (generated ones included: a generator must not paste a helper either). */
function sources(): string[] {
  return execFileSync('git', ['ls-files', '*.ts', '*.mts'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((f) => f !== '' && !HOMES.includes(f) && f !== 'test/spec/one-definition.test.ts');
}

const DEFINITIONS: [string, RegExp][] = [
  [
    'an isObj-style guard (v !== null && typeof v === "object" && !Array.isArray(v))',
    /(?:const|function)\s+is(?:Obj|Object|PlainObject|Record)\w*\s*[=(]/,
  ],
  ['JSON Pointer escaping', /\.replace\(\/~\/g,\s*'~0'\)/],
  ['JSON Pointer unescaping', /\.replace\(\/~1\/g,\s*'\/'\)/],
  // any Set literal naming three of the keywords that hold one subschema, in any order (a second table, however named)
  [
    'a table of subschema keywords',
    /new Set\(\[(?=[^\]]*'additionalProperties')(?=[^\]]*'propertyNames')(?=[^\]]*'unevaluatedItems')[^\]]*\]/,
  ],
];

/**
 * Helpers of the generators' model builders with one home each (issue 31: one definition of each schema-reading
 * helper): `generators/src/model/raw.ts` (the string and `x-` extension readers the model and the schema builder
 * share) and the node readings of `generators/src/model/schema/shape.ts` (a ref followed to its named node, an
 * object's fields with its allOf parts merged).
 */
const GENERATOR_HELPERS: [string, RegExp, string][] = [
  ['a child JSON Pointer builder (pointer + pointerOf(tokens))', /\+\s*pointerOf\(/, 'generators/src/util/json.ts (childPointer)'],
  [
    'a string reader (typeof v === "string" ? v : undefined)',
    /(?:const|function)\s+\w+\s*=?\s*\(\s*\w+: unknown\)[^\n]*typeof \w+ === 'string' \? \w+ : undefined/,
    'generators/src/model/raw.ts (str)',
  ],
  ['an x- extensions reader', /(?:const|function)\s+extensionsOf\b/, 'generators/src/model/raw.ts'],
  ['a ref follower over typed nodes', /(?:const|function)\s+derefNode\b/, 'generators/src/model/schema/shape.ts'],
  ['an allOf-merging object shape over typed nodes', /(?:const|function)\s+objectShapeOf\b/, 'generators/src/model/schema/shape.ts'],
];
const HELPER_HOMES = ['generators/src/model/raw.ts', 'generators/src/model/schema/shape.ts'];

describe('one definition of the shared JSON helpers', () => {
  const files = sources().map((f) => ({ file: f, text: readFileSync(path.join(ROOT, f), 'utf8') }));

  it.each(DEFINITIONS)('no second definition of %s outside generators/src/util/json.ts and @paygate/contract/json', (_what, pattern) => {
    const found = files.filter(({ text }) => pattern.test(text)).map(({ file }) => file);
    expect(found, `import it from ${HOMES.join(' or ')} instead`).toEqual([]);
  });

  it.each(GENERATOR_HELPERS)('no second definition of %s in the generators', (_what, pattern, home) => {
    const found = files
      .filter(({ file }) => file.startsWith('generators/src/') && !HELPER_HOMES.includes(file))
      .filter(({ text }) => pattern.test(text))
      .map(({ file }) => file);
    expect(found, `import it from ${home} instead`).toEqual([]);
  });

  it('the two homes stay equal below their header comments', () => {
    const body = (f: string) => {
      const text = readFileSync(path.join(ROOT, f), 'utf8');
      return text.slice(text.indexOf('*/\n') + 3);
    };
    expect(body(HOMES[0]!)).toBe(body(HOMES[1]!));
  });

  it('the detector finds a pasted copy (so an empty result above means something)', () => {
    const pasted = "const isObj = (v: unknown): v is Obj => v !== null && typeof v === 'object';\nx.replace(/~/g, '~0');";
    expect(DEFINITIONS.filter(([, p]) => p.test(pasted)).length).toBe(2);
    const helpers = [
      'const child = (pointer: string, ...t: string[]): string => pointer + pointerOf(t);',
      "const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);",
      'function extensionsOf(node: Obj) {}',
    ].join('\n');
    expect(GENERATOR_HELPERS.filter(([, p]) => p.test(helpers)).length).toBe(3);
  });
});
