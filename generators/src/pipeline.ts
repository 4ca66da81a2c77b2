import { readFileSync } from 'node:fs';
import path from 'node:path';
import { buildModel } from './model/build.js';
import { queryStringPathWarnings, refuseUndeclaredPathParameters } from './model/path-parameters.js';
import type { ApiModel } from './model/types.js';
import { loadAsyncApi } from './parse/asyncapi.js';
import { loadOpenApi, type LintMode, type LintProblem } from './parse/openapi.js';
import { inlineNonComponentSchemaRefs } from './normalize/schema-refs.js';
import { dropMistypedKeywords } from './normalize/schema-keywords.js';
import { normalizePatterns, type DroppedPattern, type TranslatedPattern } from './normalize/patterns.js';
import { normalizeStatusRanges } from './normalize/status-ranges.js';
import { clientEmitter } from './emit/client.js';
import {
  createEmitContext,
  DEFAULT_TARGETS,
  type ContractImport,
  type Emitter,
  type EmitWarning,
  type RuntimeImport,
  type GeneratedFile,
  type OutputDirs,
  type RuntimeDirs,
  type Target,
} from './emit/context.js';
import { serverRequestValidatorsEmitter, unsupportedServerOperations } from './emit/request-validators.js';
import { CONTRACT_EMITTERS } from './emit/contract.js';
import { readDecisionsSource } from './emit/decision-records.js';
import { createDocsEmitters, readDocsTemplates, type DocsSources } from './emit/docs-site.js';
import { serverHandlersEmitter } from './emit/server.js';
import { createTemplateEngine, DEFAULT_TEMPLATES_DIR, readTemplateOverrides } from './emit/templates.js';
import { webhooksEmitter } from './emit/webhooks.js';
import { runPlugin, type PaygatePlugin, type PluginRunShared } from './plugins/api.js';
import { emitterPlugin } from './plugins/core.js';
import { compareStrings } from './util/sorted.js';
import type { GenerateCache } from './incremental/generate-cache.js';
import { runSalt } from './incremental/salt.js';
import { recordedSourcePath } from './util/source-path.js';

export { definePlugin, type PaygatePlugin, type PluginContext } from './plugins/api.js';
export { defineConfig, type PaygateConfig } from './plugins/config.js';
export { zodPlugin, type ZodPluginOptions } from './plugins/zod.js';
export { childrenOf, walkSchema, type SchemaPath, type SchemaVisitor, type WalkControl, type WalkOptions } from './model/schema/walk.js';
export type * from './model/types.js';
export type { EmitWarning, GeneratedFile, OutputDirs, Target } from './emit/context.js';
export type { TemplateEngine } from './emit/templates.js';
export { GenerateCache } from './incremental/generate-cache.js';

export const CORE_EMITTERS: readonly Emitter[] = [
  ...CONTRACT_EMITTERS,
  serverHandlersEmitter,
  serverRequestValidatorsEmitter,
  clientEmitter,
  webhooksEmitter,
];

export interface GenerateOptions {
  /** Directory paths are relative to (the repo root). */
  rootDir: string;
  /** Root OpenAPI document (repo-relative). */
  openapi: string;
  /** AsyncAPI document, or null for none. */
  asyncapi?: string | null;
  /** Redocly config; undefined = minimal ruleset. */
  lintConfig?: string | undefined;
  lint?: LintMode;
  out?: Partial<OutputDirs>;
  /** Where generated code imports the hand-written runtimes from (repo-relative). */
  runtime?: Partial<RuntimeDirs>;
  /** How generated code imports the generated contract (default: by package name in the canonical layout). */
  contractImport?: ContractImport;
  /** How generated code imports the runtimes: relative paths (default, this repo) or package names (`paygate generate`). */
  runtimeImport?: RuntimeImport;
  /** The command every header names (default `npm run generate`). */
  regenerateCommand?: string;
  /** Targets to generate (default: DEFAULT_TARGETS, the committed ones; add 'docs' for the documentation site). */
  targets?: readonly Target[];
  templatesDir?: string;
  /** A project's template folder: a file replaces the built-in template or partial of the same name (D374 template overrides). */
  templatesOverrideDir?: string;
  /** Emitters to run (default: CORE_EMITTERS, plus the docs emitters when the targets include 'docs'). */
  emitters?: readonly Emitter[];
  /** A project's plugins (`definePlugin`), run after Paygate's own emitters whatever the targets (D370 generator plugins). */
  plugins?: readonly PaygatePlugin[];
  /** Where plugins write (their `ctx.outRoot`, relative to rootDir): default the directory above the contract's output. */
  outRoot?: string;
  /** The docs site's human sources (default: docs/errors.md, docs/decisions.md and templates/docs under rootDir). */
  docs?: DocsSources;
  onProgress?: (step: string, ms: number) => void;
  /**
   * D440: what the previous run of the same project kept (`paygate generate --watch` passes one across runs): the lint
   * and bundle, the type layer's units and the request validators are reused where the inputs they read are
   * unchanged. The files are the same bytes as without it.
   */
  cache?: GenerateCache;
}

export interface GenerateResult {
  model: ApiModel;
  files: GeneratedFile[];
  timings: { step: string; ms: number }[];
  lintProblems: LintProblem[];
  asyncapiProblems: string[];
  /** Operations the server scaffold skips (answered 501; contract and client still generate), with where and why. */
  skippedServerOperations: { operationId: string; pointer: string; problem: string; fix: string }[];
  /**
   * What generation degraded instead of refusing the document (a validator Ajv cannot compile, D198; a pattern that is
   * no regular expression, D206), with where and the fix.
   */
  warnings: EmitWarning[];
  /** Patterns valid only without the `u` flag, rewritten in `u` syntax (decision D60); `file` is the spec they are in. */
  translatedPatterns: (TranslatedPattern & { file: string })[];
  /** Absolute paths of every file the OpenAPI bundle read (the root included) and the AsyncAPI document: what watch mode watches. */
  inputFiles: string[];
}

async function timed<T>(
  timings: GenerateResult['timings'],
  step: string,
  onProgress: GenerateOptions['onProgress'],
  fn: () => Promise<T> | T,
): Promise<T> {
  const start = performance.now();
  const value = await fn();
  const ms = performance.now() - start;
  timings.push({ step, ms });
  onProgress?.(step, ms);
  return value;
}

/** The docs site's sources in a checkout: docs/errors.md, the records of docs/decisions/ (else docs/decisions.md), templates/docs. */
export function readDocsSources(rootDir: string, templatesDir: string = DEFAULT_TEMPLATES_DIR): DocsSources {
  return {
    errorsMarkdown: readFileSync(path.join(rootDir, 'docs', 'errors.md'), 'utf8'),
    ...readDecisionsSource(rootDir),
    templates: readDocsTemplates(templatesDir),
  };
}

/** parse -> model -> emit, entirely in memory (the CLI writes or compares the files). */
export async function generate(options: GenerateOptions): Promise<GenerateResult> {
  const timings: GenerateResult['timings'] = [];
  const { rootDir, onProgress, cache } = options;
  // D440: another generator, template, plugin list or option than the cache's last run empties it
  const overrides =
    options.templatesOverrideDir === undefined
      ? undefined
      : readTemplateOverrides(
          path.resolve(rootDir, options.templatesOverrideDir),
          options.templatesDir ?? DEFAULT_TEMPLATES_DIR,
          path.relative(rootDir, path.resolve(rootDir, options.templatesOverrideDir)).split(path.sep).join('/') || '.',
        );
  cache?.begin(runSalt(options, overrides?.templates));
  const loaded = await timed(timings, 'parse openapi (lint + bundle)', onProgress, () =>
    loadOpenApi({
      input: options.openapi,
      lintConfig: options.lintConfig,
      lint: options.lint ?? 'strict',
      cwd: rootDir,
      ...(cache === undefined ? {} : { cache }),
    }),
  );
  const asyncapi =
    options.asyncapi === undefined || options.asyncapi === null
      ? undefined
      : await timed(timings, 'parse asyncapi', onProgress, () => loadAsyncApi(options.asyncapi!, rootDir));
  /** What generation degraded instead of refusing (D198 tolerant schema compilation; D206 unsupported patterns dropped with a warning): printed as warnings with their location and fix. */
  const warnings: EmitWarning[] = [];
  // D204: the header names each document relative to its project root, whatever the spelling of --input or the cwd.
  const source = [options.openapi, options.asyncapi]
    .filter((s): s is string => typeof s === 'string')
    .map((s) => recordedSourcePath(s, rootDir))
    .join(' + ');
  // Every later reader (model, validators, the type layer, the embedded document, the contract tooling) sees `u`-valid
  // patterns only (D60 patterns use the u flag everywhere) and status ranges spelled `4XX` (D199 status range keys normalised).
  const { document, asyncMessages, translatedPatterns } = await timed(timings, 'normalize patterns, status ranges', onProgress, () => {
    const ranges = normalizeStatusRanges(loaded.document, options.openapi);
    // D430: a wrongly typed value keyword of a schema (`"pattern": 0`) is left out, with a warning naming it
    // D452: a schema ref to another operation's or a parameter's schema is copied in place (readers resolve component schemas only)
    const keywords = dropMistypedKeywords(inlineNonComponentSchemaRefs(ranges.document).document);
    warnings.push(...keywords.dropped.map((d) => ({ pointer: `${options.openapi}${d.pointer}`, problem: d.problem, fix: d.fix })));
    const fromOpenApi = normalizePatterns(keywords.document, options.openapi);
    const translated = fromOpenApi.translated.map((t) => ({ ...t, file: options.openapi }));
    const dropped = (file: string, list: readonly DroppedPattern[]) =>
      warnings.push(
        ...list.map((d) => ({
          pointer: `${file}${d.pointer}`,
          problem: `${d.problem} It is left out: values are not checked against it (D206).`,
          fix: d.fix,
        })),
      );
    dropped(options.openapi, fromOpenApi.dropped);
    const messages = (asyncapi?.messages ?? []).map((message) => {
      const payload = normalizePatterns(message.payload, options.asyncapi!, `#/components/messages/${message.name}/payload`);
      translated.push(...payload.translated.map((t) => ({ ...t, file: options.asyncapi! })));
      dropped(options.asyncapi!, payload.dropped);
      return { ...message, payload: payload.document };
    });
    return { document: fromOpenApi.document, asyncMessages: messages, translatedPatterns: translated };
  });
  const model = await timed(timings, 'build model', onProgress, () =>
    buildModel(document, { source, asyncMessages, plannedEvents: asyncapi?.plannedEvents ?? [] }),
  );
  // D201: an undeclared path template parameter is refused under strict lint (`--lint report` generates anyway).
  if ((options.lint ?? 'strict') === 'strict') refuseUndeclaredPathParameters(model, options.openapi);
  // D410: a query string written into a path whose parameters are declared is generated, with a warning
  warnings.push(...queryStringPathWarnings(model, options.openapi));
  if (overrides !== undefined) warnings.push(...overrides.warnings);
  const contexts = createEmitContext({
    model,
    warnings,
    document,
    templates: createTemplateEngine(options.templatesDir ?? DEFAULT_TEMPLATES_DIR, overrides?.templates),
    ...(options.out === undefined ? {} : { out: options.out }),
    ...(options.runtime === undefined ? {} : { runtime: options.runtime }),
    ...(options.contractImport === undefined ? {} : { contractImport: options.contractImport }),
    ...(options.runtimeImport === undefined ? {} : { runtimeImport: options.runtimeImport }),
    ...(options.regenerateCommand === undefined ? {} : { regenerateCommand: options.regenerateCommand }),
    ...(cache === undefined ? {} : { cache }),
  });
  const targets = options.targets ?? DEFAULT_TARGETS;
  const available = options.emitters ?? [
    ...CORE_EMITTERS,
    ...(targets.includes('docs')
      ? createDocsEmitters(options.docs ?? readDocsSources(rootDir, options.templatesDir ?? DEFAULT_TEMPLATES_DIR))
      : []),
  ];
  const shared: PluginRunShared = {
    model,
    outRoot: options.outRoot ?? path.posix.dirname(contexts.context.out.contract),
    out: contexts.context.out,
    document,
    header: contexts.context.header,
    templates: contexts.context.templates,
    contractImport: contexts.context.contractImport,
    typeLayer: contexts.context.typeLayer,
    warn: (warning) => warnings.push(warning),
  };
  // D370: Paygate's emitters and the project's plugins run through one runner, in that order.
  const plugins: PaygatePlugin[] = [
    ...available.filter((e) => targets.includes(e.target)).map((e) => emitterPlugin(e, contexts)),
    ...(options.plugins ?? []),
  ];
  const names = new Set<string>();
  for (const plugin of plugins) {
    if (names.has(plugin.name)) throw new Error(`Two plugins are named "${plugin.name}": rename one (names are unique in a run).`);
    names.add(plugin.name);
  }
  const files: GeneratedFile[] = [];
  const writer = new Map<string, string>();
  for (const plugin of plugins) {
    const written = await timed(timings, `emit ${plugin.name}`, onProgress, () => runPlugin(plugin, shared));
    for (const f of written) {
      const first = writer.get(f.path);
      if (first !== undefined)
        throw new Error(`Two plugins wrote ${f.path}: "${first}" and "${plugin.name}". Change the path one of them writes.`);
      writer.set(f.path, plugin.name);
    }
    files.push(...written);
  }
  files.sort((a, b) => compareStrings(a.path, b.path));
  const skippedServerOperations = targets.includes('server') ? unsupportedServerOperations(model) : [];
  return {
    model,
    files,
    timings,
    lintProblems: loaded.problems,
    asyncapiProblems: asyncapi?.problems ?? [],
    translatedPatterns,
    skippedServerOperations,
    warnings,
    inputFiles: [...loaded.files, ...(asyncapi?.files ?? [])],
  };
}
