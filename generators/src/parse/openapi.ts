import path from 'node:path';
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { jsonLineCols } from './json-locations.js';
import { refuseRefCycles } from './ref-cycles.js';
import { refuseUnsupportedDocument } from './unsupported.js';
import { UnsupportedSpecError } from './refusal.js';
import { isSchemaPosition, SIMPLE_SCHEMA_KEYWORDS } from '../normalize/schema-keywords.js';
import { pointerTokens } from '../util/json.js';
import type { CachedLoad } from '../incremental/generate-cache.js';
import { digestText } from '../incremental/digest.js';
import { generatorVersion } from '../incremental/salt.js';
import {
  BaseResolver,
  bundle,
  createConfig,
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
  cache?: { load: CachedLoad | undefined; lastRun: { loadReused: boolean } };
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
 * Rules whose errors mean the document is not valid OpenAPI (or cannot be read): the only ones that stop generation
 * when the user gave no lint config (D116 default lint stops only on structural errors). Every other rule of the default set is style (`no-server-trailing-slash`
 * errors in Redocly's `minimal` set, and Stripe's and DigitalOcean's specs have one) and is reported as a warning.
 */
export const STRUCTURAL_LINT_RULES: ReadonlySet<string> = new Set([
  'struct',
  'no-unresolved-refs',
  'no-server-variables-empty-enum',
  'spec',
  'no-undefined-server-variable',
  'path-parameters-defined',
  'operation-operationId-unique',
  'no-identical-paths',
]);

/**
 * D205: in an OpenAPI 3.1 document a Schema Object is JSON Schema 2020-12, where a keyword the vocabulary does not know
 * is an annotation, valid and ignored (`nullable`, `x-nullable` without the `x-`, a vendor's own keyword). Redocly's
 * `struct` rule calls it "not expected here"; openapi-typescript's Redocly accepts it. Such a problem is not a reason to
 * refuse the document: it is reported as a warning. Recognised by the problem's JSON pointer: its parent is a schema
 * position (`.../schema`, `.../properties/<name>`, `.../items`, `.../allOf/<i>`, `#/components/schemas/<name>`...).
 */
export function isUnknownSchemaKeyword(problem: Pick<NormalizedProblem, 'ruleId' | 'message' | 'location'>): boolean {
  if (problem.ruleId !== 'struct' || !/^Property `[^`]+` is not expected here\.?$/.test(problem.message)) return false;
  const pointer = problem.location[0]?.pointer;
  if (pointer === undefined) return false;
  return isSchemaPosition(pointerTokens(pointer).slice(0, -1));
}

/**
 * D430: a schema keyword that constrains or annotates one value, written with the wrong JSON type (api.video's
 * `"pattern": 0`), carries no meaning a validator could apply; openapi-typescript generates from such a document.
 * Redocly's `struct` rule reports "Expected type `string` but got `integer`": a warning, and the keyword is left out
 * after bundling (normalize/schema-keywords.ts, with a warning naming its pointer). Keywords that shape the schema
 * (`type`, `items`, `allOf`...) stay errors.
 */
export function isMistypedSchemaKeyword(problem: Pick<NormalizedProblem, 'ruleId' | 'message' | 'location'>): boolean {
  if (problem.ruleId !== 'struct' || !/^Expected type `[^`]+`( \([a-z]+\))? but got `[^`]+`\.?$/.test(problem.message)) return false;
  const pointer = problem.location[0]?.pointer;
  if (pointer === undefined) return false;
  const tokens = pointerTokens(pointer);
  const keyword = tokens[tokens.length - 1];
  return keyword !== undefined && Object.hasOwn(SIMPLE_SCHEMA_KEYWORDS, keyword) && isSchemaPosition(tokens.slice(0, -1));
}

/** Maps whose keys are names the document chooses (a schema may be called `x-rate`): no extension sits among them. */
const NAME_MAPS = new Set([
  'paths',
  'schemas',
  'responses',
  'parameters',
  'examples',
  'requestBodies',
  'headers',
  'securitySchemes',
  'links',
  'callbacks',
  'pathItems',
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'content',
  'encoding',
  'variables',
]);

/**
 * D405: a `struct` error inside a specification extension is Redocly's reading of a vendor's extension, not a fault of
 * the OpenAPI document: `info.x-logo` written as a URL string where Redocly's own type wants `{url}` (1Password's
 * Events API), `"x-sdk-exclude": true` in `webhooks` or the `x-webhooks` map Redocly reads in 3.0 (apideck, steering
 * its SDK tools). OpenAPI leaves an extension's shape to whoever defines it and openapi-typescript skips them, as does
 * every reader here (the events model takes only object Path Items from `webhooks`): a warning, never a refusal. A key
 * of a name map (a schema called `x-rate`) is a name, not an extension.
 */
export function isExtensionShape(problem: Pick<NormalizedProblem, 'ruleId' | 'location'>): boolean {
  const pointer = problem.location[0]?.pointer;
  if (problem.ruleId !== 'struct' || pointer === undefined) return false;
  const tokens = pointer.replace(/^#\/?/, '').split('/');
  return tokens.some((token, i) => token.startsWith('x-') && (i === 0 || !NAME_MAPS.has(tokens[i - 1]!)));
}

/**
 * D407: a field OpenAPI does not define where no reader looks for one: at the document's root (Google Cloud Build's
 * `"source": {...}`, left over from the document's conversion) and in a Discriminator Object (Mailchimp's
 * `discriminator: {propertyName, type}`; the generators read `propertyName` and `mapping` only). openapi-typescript
 * ignores both. A warning naming it, never a refusal; an unknown field anywhere else is still an error.
 */
export function isUnknownRootField(problem: Pick<NormalizedProblem, 'ruleId' | 'message' | 'location'>): boolean {
  const pointer = problem.location[0]?.pointer;
  return (
    problem.ruleId === 'struct' &&
    /^Property `[^`]+` is not expected here\.?$/.test(problem.message) &&
    pointer !== undefined &&
    (/^#\/[^/]+$/.test(pointer) || /\/discriminator\/[^/]+$/.test(pointer))
  );
}

/**
 * D408: a server variable whose `default` is not among its `enum` (VTEX's template: `"default": "{environment}"`). OpenAPI
 * 3.0 says the default SHOULD be one of them (a warning); 3.1 says MUST, so there it stays an error. An empty enum
 * (the rule's other finding) is an error in both.
 */
export function isServerDefaultOutsideEnum(problem: Pick<NormalizedProblem, 'ruleId' | 'message'>): boolean {
  return problem.ruleId === 'no-server-variables-empty-enum' && /must include default/i.test(problem.message);
}

/** A style error of the default rule set becomes a warning (D116 default lint stops only on structural errors); with the user's own config every error stays one. */
export function demoteStyleErrors(problems: LintProblem[], userConfig: boolean): LintProblem[] {
  if (userConfig) return problems;
  return problems.map((p) => (p.severity === 'error' && !STRUCTURAL_LINT_RULES.has(p.ruleId) ? { ...p, severity: 'warn' } : p));
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
  const config =
    options.lintConfig !== undefined
      ? await loadConfig({ configPath: path.resolve(cwd, options.lintConfig) })
      : await createConfig({ extends: ['minimal'] });

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
    const raw = preprocessed ? await lint({ ref: input, config }) : await lintDocument({ document, config, externalRefResolver: resolver });
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
