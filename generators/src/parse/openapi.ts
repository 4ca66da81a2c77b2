import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { jsonLineCols } from './json-locations.js';
import { refuseRefCycles } from './ref-cycles.js';
import { refuseUnsupportedDocument } from './unsupported.js';
import { UnsupportedSpecError } from './refusal.js';
import type { CachedLoad } from '../incremental/generate-cache.js';
import { digestText } from '../incremental/digest.js';
import { generatorVersion } from '../incremental/salt.js';
import { ExampleValidators } from './media-type-examples.js';
import { defaultLintConfig } from './lint-config.js';
import {
  demoteStyleErrors,
  isExtensionShape,
  isMistypedSchemaKeyword,
  isServerDefaultOutsideEnum,
  isUnknownRootField,
  isUnknownSchemaKeyword,
} from './lint-severity.js';
import {
  BaseResolver,
  bundle,
  detectSpec,
  getLineColLocation,
  lint,
  lintDocument,
  loadConfig,
  Source,
  type Document,
  type NormalizedProblem,
} from '@redocly/openapi-core';

export type LintMode =
  /** Lint with the config and refuse on any error (the default for the canonical spec). */
  | 'strict'
  /** Lint with a minimal rule set and report, but do not refuse (fixtures, third-party specs). */
  | 'report'
  /** Do not lint. */
  | 'skip';

export interface LoadOpenApiOptions {
  /** Path of the root OpenAPI document (multi-file specs are bundled). */
  input: string;
  /** Redocly config file (redocly.yaml). When absent: the `minimal` ruleset. */
  lintConfig?: string | undefined;
  lint?: LintMode;
  /** Directory against which locations are printed (default: cwd). */
  cwd?: string;
  /**
   * D443: the last run's lint and bundle (watch mode), reused when the lint settings and every file the bundle read
   * have the same bytes; replaced by this run's.
   */
  cache?: { load: CachedLoad | undefined; lastRun: { loadReused: boolean }; exampleValidators?: ExampleValidators };
}

export interface LintProblem {
  severity: 'error' | 'warn';
  ruleId: string;
  message: string;
  /** `file:line:col` (relative to cwd) */
  location: string;
  suggest: string[];
}

export interface LoadedOpenApi {
  /** The bundled document: external refs inlined into components, internal `$ref`s kept. */
  document: Record<string, unknown>;
  /** Absolute paths of every file the bundle read (root included). */
  files: string[];
  problems: LintProblem[];
}

export class SpecLintError extends Error {
  constructor(
    readonly problems: LintProblem[],
    readonly input: string,
    /** The Redocly config the rules came from (relative to cwd), when the user gave one. */
    readonly lintConfig?: string,
  ) {
    super(formatLintFailure(problems, input, lintConfig));
    this.name = 'SpecLintError';
  }
}

export function formatProblem(p: LintProblem): string {
  const hint = p.suggest.length > 0 ? ` (did you mean: ${p.suggest.join(', ')}?)` : '';
  return `${p.location}: ${p.severity} [${p.ruleId}] ${p.message}${hint}`;
}

/**
 * Where each rule of these problems is explained, one line per rule (D291, lint advice right outside the repository):
 * Redocly's page for a built-in rule (the address Redocly's own formatter prints), the config file for a configurable
 * rule (`rule/<name>`), the plugin for a plugin's rule (`<plugin>/<rule>`). No command of this repository: the
 * command that printed the problems says how to run it again.
 */
export function ruleDocs(problems: readonly LintProblem[], lintConfig?: string): string[] {
  const config = lintConfig ?? 'your Redocly config (redocly.yaml)';
  return [...new Set(problems.map((p) => p.ruleId))].sort().map((ruleId) => {
    if (ruleId.startsWith('rule/')) return `  ${ruleId}: a configurable rule of ${config} (its message says what it wants)`;
    const slash = ruleId.indexOf('/');
    if (slash > 0) return `  ${ruleId}: a rule of the plugin ${ruleId.slice(0, slash)} (listed under plugins in ${config})`;
    return `  ${ruleId}: https://redocly.com/docs/cli/rules/${ruleId}`;
  });
}

export function formatLintFailure(problems: LintProblem[], input: string, lintConfig?: string): string {
  const errors = problems.filter((p) => p.severity === 'error');
  return [
    `Refusing to generate: ${input} has ${errors.length} lint error(s).`,
    ...errors.map((p) => `  ${formatProblem(p)}`),
    'What each rule asks for:',
    ...ruleDocs(errors, lintConfig),
  ].join('\n');
}

/** D191: root documents read as strict JSON (readRootDocument): their locations are found by jsonLineCols. */
const strictJsonSources = new WeakSet<Source>();

/**
 * Lint problems with their `file:line:col`: a location in a strict-JSON root by one scan of its text for all of them
 * (D191 lint locations from one JSON scan), any other by Redocly's getLineColLocation (which parses the file again with its YAML AST parser).
 */
function toLintProblems(problems: readonly NormalizedProblem[], cwd: string): LintProblem[] {
  const fast = new Map<Source, { index: number; pointer: string; reportOnKey?: boolean }[]>();
  problems.forEach((problem, index) => {
    const loc = problem.location[0];
    if (loc?.pointer === undefined || !strictJsonSources.has(loc.source)) return;
    const list = fast.get(loc.source) ?? [];
    fast.set(loc.source, list);
    list.push({ index, pointer: loc.pointer, ...(loc.reportOnKey === undefined ? {} : { reportOnKey: loc.reportOnKey }) });
  });
  const found = new Map<number, { line: number; col: number }>();
  for (const [source, list] of fast) {
    const positions = jsonLineCols(source.body, list);
    list.forEach((l, i) => found.set(l.index, positions[i]!));
  }
  return problems.map((problem, index) => toLintProblem(problem, cwd, found.get(index)));
}

function toLintProblem(problem: NormalizedProblem, cwd: string, start?: { line: number; col: number }): LintProblem {
  const loc = problem.location[0];
  let location = '<unknown>';
  if (loc) {
    const file = path.relative(cwd, loc.source.absoluteRef) || loc.source.absoluteRef;
    try {
      const at = start ?? getLineColLocation(loc).start;
      location = `${file}:${at.line}:${at.col}`;
    } catch {
      location = `${file}#${loc.pointer ?? ''}`;
    }
  }
  return {
    severity: problem.severity === 'error' ? 'error' : 'warn',
    ruleId: problem.ruleId,
    message: problem.message,
    location,
    suggest: problem.suggest,
  };
}

/**
 * The root document, read once for lint and bundle (D163 root document read once): a `.json` file by `JSON.parse` (a file it refuses, and
 * every other extension, by Redocly's own YAML parser, as its resolver reads it), with the text Redocly's locations
 * (file:line:col) are computed from.
 */
async function readRootDocument(input: string, resolver: BaseResolver): Promise<Document> {
  // As BaseResolver.loadExternalRef reads a local file.
  const source = new Source(input, (await readFile(input, 'utf8')).replace(/\r\n/g, '\n'));
  if (path.extname(input).toLowerCase() === '.json') {
    try {
      const parsed = JSON.parse(source.body) as unknown;
      strictJsonSources.add(source);
      return { source, parsed };
    } catch {
      // Not strict JSON (a comment, a trailing comma...): Redocly's YAML parser reads it or names the error.
    }
  }
  return resolver.parseDocument(source, true);
}

/**
 * D443: what a lint and bundle depend on: the mode, the config file's text and each file read (path and bytes). A file
 * that cannot be read any more gives a key no run had.
 */
async function loadKey(
  files: readonly string[],
  mode: LintMode,
  lintConfig: string | undefined,
  cwd: string,
  /** The texts the run parsed (by path), else each file as it is now. */
  parsed?: ReadonlyMap<string, string>,
): Promise<string> {
  const read = async (f: string) => (await readFile(f, 'utf8').catch(() => '\u0000unreadable')).replace(/\r\n/g, '\n');
  const config = lintConfig === undefined ? '' : await read(path.resolve(cwd, lintConfig));
  const texts = await Promise.all(files.map(async (f) => `${f}\u0000${parsed?.get(f) ?? (await read(f))}`));
  return digestText([generatorVersion(), mode, lintConfig ?? '', config, cwd, ...texts].join('\u0001'));
}

/** Lints (per `lint` mode) then bundles the OpenAPI document. Throws SpecLintError on lint errors in strict mode. */
export async function loadOpenApi(options: LoadOpenApiOptions): Promise<LoadedOpenApi> {
  const cwd = options.cwd ?? process.cwd();
  const input = path.resolve(cwd, options.input);
  const mode = options.lint ?? 'strict';
  const cache = options.cache;
  const previous = cache?.load;
  // D443: the root may be another file now (the key then differs: its path is part of it)
  if (previous?.files.includes(input)) {
    const key = await loadKey(previous.files, mode, options.lintConfig, cwd);
    if (key === previous.key) {
      cache!.lastRun.loadReused = true;
      return { document: previous.document, files: previous.files, problems: previous.problems };
    }
  }
  const { texts, ...loaded } = await lintAndBundle(options, cwd, input, mode);
  // keyed by the very texts this run parsed: a save during the run is a change the next run sees
  if (cache !== undefined) cache.load = { key: await loadKey(loaded.files, mode, options.lintConfig, cwd, texts), ...loaded };
  return loaded;
}

async function lintAndBundle(
  options: LoadOpenApiOptions,
  cwd: string,
  input: string,
  mode: LintMode,
): Promise<LoadedOpenApi & { texts: Map<string, string> }> {
  const file = path.relative(cwd, input);
  // D444 (media-type examples checked by a Paygate rule with validators kept across runs): without a config of the
  // user's, Paygate's rule checks the examples (validators kept in the cache); without a cache, with this run's alone
  const validators = options.cache?.exampleValidators ?? new ExampleValidators();
  const config =
    options.lintConfig !== undefined
      ? await loadConfig({ configPath: path.resolve(cwd, options.lintConfig) })
      : await defaultLintConfig(validators);

  const refuseUnreadable = async (error: unknown): Promise<never> => {
    // The bundler throws (rather than reports) on a few broken documents: name the place when we can find it.
    refuseRefCycles(parseYaml(await readFile(input, 'utf8')), file);
    throw new UnsupportedSpecError(
      file,
      '',
      `the bundler (@redocly/openapi-core) could not read the document: ${(error as Error).message}`,
      'run `npx @redocly/cli lint <file>` on it for the location, and fix what it reports.',
    );
  };
  // D163: one parse of the root for lint and bundle, and one resolver (each external file is read and parsed once).
  // The root is cached under its path, as resolveDocument(root) would, so a $ref back into it is the same document.
  const resolver = new BaseResolver(config.resolve);
  const document = await readRootDocument(input, resolver).catch(refuseUnreadable);
  resolver.cache.set(input, Promise.resolve(document));

  let problems: LintProblem[] = [];
  if (mode !== 'skip') {
    // A preprocessor rewrites the document it lints: then lint reads its own copy, as before.
    const preprocessed = Object.keys(config.preprocessors[detectSpec(document.parsed)] ?? {}).length > 0;
    validators.startRun();
    const raw = await (preprocessed
      ? lint({ ref: input, config })
      : lintDocument({ document, config, externalRefResolver: resolver })
    ).finally(() => validators.endRun());
    // D205: an unknown keyword in a 3.1 schema is valid JSON Schema 2020-12 (an annotation): a warning, never a refusal;
    // D405: so is the shape of a specification extension; D407: so is an unknown field at the root; D408: so is, in
    // 3.0, a server variable's default outside its enum; D430: so is a wrongly typed value keyword of a schema
    const jsonSchema2020 =
      typeof document.parsed === 'object' && /^3\.1\./.test(String((document.parsed as { openapi?: unknown }).openapi));
    const kept = raw
      .filter((p) => p.ignored !== true)
      .map((p) =>
        p.severity === 'error' &&
        ((jsonSchema2020 && isUnknownSchemaKeyword(p)) ||
          isExtensionShape(p) ||
          isUnknownRootField(p) ||
          isMistypedSchemaKeyword(p) ||
          (!jsonSchema2020 && isServerDefaultOutsideEnum(p)))
          ? { ...p, severity: 'warn' as const }
          : p,
      );
    problems = demoteStyleErrors(toLintProblems(kept, cwd), options.lintConfig !== undefined);
    if (mode === 'strict' && problems.some((p) => p.severity === 'error')) {
      throw new SpecLintError(problems, file, options.lintConfig);
    }
  }

  const result = await bundle({ doc: document, config, externalRefResolver: resolver, dereference: false }).catch(refuseUnreadable);
  const bundleErrors = result.problems.filter((p) => p.severity === 'error');
  if (bundleErrors.length > 0) {
    throw new SpecLintError(toLintProblems(bundleErrors, cwd), file, options.lintConfig);
  }
  const bundled = result.bundle.parsed as Record<string, unknown>;
  refuseUnsupportedDocument(bundled, file);
  const files = [...result.fileDependencies, input].sort();
  const texts = new Map<string, string>();
  for (const f of files) {
    const read = (await resolver.cache.get(f)?.catch(() => undefined)) as Document | undefined;
    if (read !== undefined && typeof read.source?.body === 'string') texts.set(f, read.source.body.replace(/\r\n/g, '\n'));
  }
  return { document: bundled, files, problems, texts };
}
