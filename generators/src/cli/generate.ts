/**
 * `npm run generate` writes every generated file; `npm run generate:check` regenerates in memory and exits 1
 * naming each drifted or missing file (the fix: `npm run generate`).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { generate, type GenerateResult } from '../pipeline.js';
import { SpecLintError, formatProblem } from '../parse/openapi.js';
import { UnsupportedSpecError } from '../parse/refusal.js';
import { parseArgs, type CliOptions } from './args.js';

export interface DriftReport {
  drifted: string[];
  missing: string[];
}

/** Compares generated files with what is on disk under `rootDir`. */
export async function compareWithDisk(rootDir: string, files: GenerateResult['files']): Promise<DriftReport> {
  const report: DriftReport = { drifted: [], missing: [] };
  for (const file of files) {
    let current: string;
    try {
      current = await readFile(path.join(rootDir, file.path), 'utf8');
    } catch {
      report.missing.push(file.path);
      continue;
    }
    if (current !== file.contents) report.drifted.push(file.path);
  }
  return report;
}

export async function writeFiles(rootDir: string, files: GenerateResult['files']): Promise<{ written: string[]; unchanged: string[] }> {
  const written: string[] = [];
  const unchanged: string[] = [];
  for (const file of files) {
    const target = path.join(rootDir, file.path);
    const current = await readFile(target, 'utf8').catch(() => undefined);
    if (current === file.contents) {
      unchanged.push(file.path);
      continue;
    }
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, file.contents);
    written.push(file.path);
  }
  return { written, unchanged };
}

export async function run(options: CliOptions, log: (line: string) => void = console.log): Promise<number> {
  const start = performance.now();
  const outRoot = options.outRoot === undefined ? options.rootDir : path.resolve(options.rootDir, options.outRoot);
  log(`${options.check ? 'Checking' : 'Generating'} from ${[options.openapi, options.asyncapi].filter(Boolean).join(' + ')}`);
  let result: GenerateResult;
  try {
    result = await generate({
      rootDir: options.rootDir,
      openapi: options.openapi,
      asyncapi: options.asyncapi,
      lintConfig: options.lintConfig,
      lint: options.lint,
      ...(options.targets === undefined ? {} : { targets: options.targets }),
      onProgress: (step, ms) => log(`  ${step.padEnd(36)} ${ms.toFixed(0).padStart(6)} ms`),
    });
  } catch (error) {
    if (error instanceof SpecLintError || error instanceof UnsupportedSpecError) {
      log(error.message);
      // this entry is the repository's own `npm run generate` (D291: repository advice only where it applies)
      if (error instanceof SpecLintError) log('Fix the spec, then `npm run lint:spec` (the project rules) and `npm run generate` again.');
      return 1;
    }
    throw error;
  }
  const warnings = result.lintProblems.filter((p) => p.severity === 'warn');
  if (warnings.length > 0) log(`  ${warnings.length} lint warning(s):\n${warnings.map((p) => `    ${formatProblem(p)}`).join('\n')}`);
  for (const p of result.asyncapiProblems) log(`    ${p}`);
  for (const w of result.warnings) log(`  warning: ${w.pointer}: ${w.problem}\n    Fix: ${w.fix}`);
  if (result.translatedPatterns.length > 0) {
    log(`  ${result.translatedPatterns.length} pattern(s) valid only without the u flag, rewritten in u syntax (decision D60):`);
    for (const t of result.translatedPatterns) log(`    ${t.file}${t.pointer}: ${JSON.stringify(t.from)} -> ${JSON.stringify(t.to)}`);
  }

  if (options.check) {
    const drift = await compareWithDisk(outRoot, result.files);
    const total = performance.now() - start;
    if (drift.drifted.length === 0 && drift.missing.length === 0) {
      log(`All ${result.files.length} generated files are up to date (${total.toFixed(0)} ms).`);
      return 0;
    }
    for (const f of drift.drifted) log(`  drifted: ${f}`);
    for (const f of drift.missing) log(`  missing: ${f}`);
    log(`Generated code is out of date with the spec. Run \`npm run generate\` and commit the result.`);
    return 1;
  }
  const { written, unchanged } = await writeFiles(outRoot, result.files);
  for (const f of written) log(`  wrote ${f}`);
  log(`${written.length} file(s) written, ${unchanged.length} unchanged, in ${(performance.now() - start).toFixed(0)} ms.`);
  return 0;
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href;
if (isMain) {
  let options: CliOptions;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    console.error((error as Error).message);
    process.exit(2);
  }
  run(options).then(
    (code) => process.exit(code),
    (error: unknown) => {
      // Spec problems are refused above with their location; anything reaching here is a generator bug.
      const message = error instanceof Error ? error.message : String(error);
      console.error(`Generation failed: ${message}`);
      if (process.env['PAYGATE_DEBUG'] === '1') console.error(error instanceof Error ? error.stack : error);
      else
        console.error(
          'This is a bug in @paygate/generators, not in your spec: rerun with PAYGATE_DEBUG=1 for the stack trace and report it with the spec.',
        );
      process.exit(1);
    },
  );
}
