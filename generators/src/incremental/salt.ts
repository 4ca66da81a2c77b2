/**
 * The salt of a run (D440 the generate cache and its salt): everything besides the input documents that shapes what generation writes. A cache whose
 * last run had another salt is emptied: a new generator version, another template override, plugin list, output
 * layout or lint setting never reuses a unit computed under the old one.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { GenerateOptions } from '../pipeline.js';
import { digestJson } from './digest.js';

let version: string | undefined;

/** @paygate/cli's version (generators/package.json), read once. */
export function generatorVersion(): string {
  version ??= (JSON.parse(readFileSync(fileURLToPath(new URL('../../package.json', import.meta.url)), 'utf8')) as { version: string })
    .version;
  return version;
}

export function runSalt(
  options: GenerateOptions,
  overrides: ReadonlyMap<string, string> | undefined,
  generator: string = generatorVersion(),
): string {
  return digestJson({
    generator,
    openapi: options.openapi,
    asyncapi: options.asyncapi ?? null,
    rootDir: options.rootDir,
    lintConfig: options.lintConfig ?? null,
    lint: options.lint ?? 'strict',
    out: options.out ?? null,
    runtime: options.runtime ?? null,
    contractImport: options.contractImport ?? null,
    runtimeImport: options.runtimeImport ?? null,
    regenerateCommand: options.regenerateCommand ?? null,
    targets: options.targets ?? null,
    templatesDir: options.templatesDir ?? null,
    templatesOverrideDir: options.templatesOverrideDir ?? null,
    overrides: overrides === undefined ? null : [...overrides].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    emitters: options.emitters?.map((e) => e.name) ?? null,
    // a plugin is code: its name and its source text (a changed emit function is another plugin)
    plugins: options.plugins?.map((p) => [p.name, String(p.emit)]) ?? null,
    outRoot: options.outRoot ?? null,
    docs: options.docs ?? null,
  });
}
