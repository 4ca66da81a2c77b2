/**
 * The public plugin API of `@paygate/cli` (D370, one emitter API for Paygate and its users): a plugin reads the
 * intermediate model (generators/src/model/types.ts) and writes files through its context; the pipeline gives those
 * files the do-not-edit header, checks that no two plugins write the same path, and `paygate generate` / `paygate
 * check` write and drift-check them with Paygate's own. Paygate's contract, server, client, webhooks and docs emitters
 * are plugins on this API too (./core.ts).
 *
 *   import { definePlugin } from '@paygate/cli';
 *   export default definePlugin({
 *     name: 'operation-ids',
 *     emit(model, ctx) {
 *       ctx.file('operation-ids.gen.ts', `export const operationIds = ${JSON.stringify(model.operations.map((o) => o.operationId))} as const;`);
 *     },
 *   });
 *
 * The model's schemas are typed (D475, an addition of a minor version): `model.schemas[i].node` and the `node` of
 * every body, parameter, header and webhook event are `SchemaNode`s (generators/src/model/schema/types.ts: `object`, `array`, scalars,
 * `enum`, `const`, `union` with its discriminator, `allOf`, `not`, `ref` naming a component schema, `unknown`,
 * `never`; each with its source pointer, one `nullable` for 3.0 and 3.1, annotations and extensions), beside the raw
 * JSON (`schema`; `node` is a getter, built on first read and not enumerable), and `walkSchema` from `@paygate/cli`
 * visits them:
 *
 *   walkSchema(model.schemas[0].node, { enter(node, path) { if (node.kind === 'ref') console.log(path, node.name); } });
 *
 * Semver: the names and members exported here follow @paygate/cli's version (a removal or a changed meaning is a major
 * version); the model's types grow with minor versions (new members, new schema node kinds: a `switch (node.kind)`
 * keeps a `default`). A plugin's tests that build a model by hand may need the new members.
 */
import path from 'node:path';
import type { ApiModel } from '../model/types.js';
import { contractSpecifier, withHeader, type EmitWarning, type GeneratedFile, type OutputDirs } from '../emit/context.js';
import type { TemplateEngine } from '../emit/templates.js';

/** What a plugin gets beside the model. */
export interface PluginContext {
  /**
   * The output root, relative to the project root with `/` separators: `paygate generate --out DIR`'s DIR (default
   * `generated`). The paths given to {@link PluginContext.file} are relative to it.
   */
  readonly outRoot: string;
  /** Where Paygate's own targets are written (relative to the project root). */
  readonly out: Readonly<OutputDirs>;
  /** The bundled OpenAPI document (plain JSON: external files inlined, internal `$ref`s kept). Do not mutate it. */
  readonly document: Readonly<Record<string, unknown>>;
  /** The do-not-edit line {@link PluginContext.file} puts on top of every file (naming the spec and the command). */
  readonly header: string;
  /** Paygate's templates (with the project's overrides, `--templates DIR`), for a plugin that renders one of them. */
  readonly templates: TemplateEngine;
  /** openapi-typescript's types of the document (the body of the contract's `types.gen.ts`), computed once per run. */
  typeLayer(): Promise<string>;
  /**
   * The import specifier, from a file this plugin writes (`fromFile`, relative to {@link outRoot}), of the generated
   * contract's index (`paths`, `components`, `operations`, enums, events).
   */
  contractImport(fromFile: string): string;
  /** Reports something generated in a degraded form: printed as a warning with the spec location and the fix. */
  warn(warning: EmitWarning): void;
  /**
   * Adds a generated file at `file` (relative to {@link outRoot}, `/` separators, inside it). The pipeline puts the
   * do-not-edit header on top in the file's comment syntax (`//` for TypeScript and JavaScript, `#` for YAML, shell,
   * Python and GraphQL, `<!-- -->` for Markdown and HTML); a file type without comments (JSON) is refused, since a
   * generated file must say it is generated: wrap the data in a `.ts` module instead.
   */
  file(file: string, contents: string): void;
}

/** A generator of more output from the model: Paygate's own emitters and a project's plugins alike. */
export interface PaygatePlugin {
  /** Unique among the plugins of a run; named in progress lines, headers and errors (`zod`, `acme/query-hooks`). */
  name: string;
  /**
   * Writes its files through `ctx.file`; may be async. Must be deterministic: the drift gate compares bytes. Read
   * schemas through their typed nodes (`node`, D475) rather than the raw `schema` JSON.
   */
  emit(model: ApiModel, ctx: PluginContext): void | Promise<void>;
}

const PLUGIN_NAME = /^[a-z0-9@][a-z0-9@/._-]*$/i;

/**
 * Declares a plugin: returns it unchanged, checked, and typed (so an editor completes the model's members). A name that
 * cannot be printed on one line or a missing `emit` is refused here, where the plugin is written.
 */
export function definePlugin<P extends PaygatePlugin>(plugin: P): P {
  assertPlugin(plugin, 'definePlugin');
  return plugin;
}

/** Refuses something that is not a plugin, naming where it came from (`definePlugin`, a config file, ...). */
export function assertPlugin(value: unknown, from: string): asserts value is PaygatePlugin {
  const candidate = value as Partial<PaygatePlugin> | null;
  if (candidate === null || typeof candidate !== 'object') {
    throw new TypeError(`${from}: a plugin is an object { name, emit(model, ctx) }, got ${value === null ? 'null' : typeof value}.`);
  }
  if (typeof candidate.name !== 'string' || !PLUGIN_NAME.test(candidate.name)) {
    throw new TypeError(
      `${from}: a plugin's name is letters, digits and @ / . _ - (e.g. "zod" or "acme/query-hooks"), got ${JSON.stringify(candidate.name)}.`,
    );
  }
  if (typeof candidate.emit !== 'function')
    throw new TypeError(`${from}: the plugin "${candidate.name}" has no emit(model, ctx) function.`);
}

/** The comment syntax of a generated file by its extension (D371: every generated file says it is generated). */
const COMMENT_STYLES: Readonly<Record<string, (line: string) => string>> = {
  ...Object.fromEntries(['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs'].map((ext) => [ext, (line: string) => `// ${line}`])),
  ...Object.fromEntries(['.yaml', '.yml', '.sh', '.py', '.graphql', '.gql', '.toml'].map((ext) => [ext, (line: string) => `# ${line}`])),
  ...Object.fromEntries(['.md', '.html', '.htm', '.xml', '.svg'].map((ext) => [ext, (line: string) => `<!-- ${line} -->`])),
};

/** The header's text without its `// ` (EmitContext.header is a TypeScript comment). */
function headerText(header: string): string {
  return header.replace(/^\/\/\s?/, '');
}

/**
 * A plugin's file at its project-relative path, with the header in its comment syntax; throws, naming the plugin, on a
 * path outside the output root or a file type without comments.
 */
export function pluginFile(plugin: string, outRoot: string, header: string, file: string, contents: string): GeneratedFile {
  const normalized = path.posix.normalize(file.replace(/\\/g, '/'));
  if (file === '' || path.posix.isAbsolute(normalized) || normalized === '..' || normalized.startsWith('../')) {
    throw new Error(
      `The plugin "${plugin}" wrote ${JSON.stringify(file)}: ctx.file takes a path inside the output root (${outRoot}), such as "zod/schemas.gen.ts".`,
    );
  }
  const style = COMMENT_STYLES[path.posix.extname(normalized).toLowerCase()];
  if (style === undefined) {
    throw new Error(
      `The plugin "${plugin}" wrote ${normalized}: a generated file carries a do-not-edit header, and ${path.posix.extname(normalized) || 'a file without an extension'} has no comment syntax Paygate knows (${Object.keys(COMMENT_STYLES).join(' ')}). Write the data as a .ts module instead.`,
    );
  }
  const lines = [style(headerText(header)), style(`Written by the ${plugin} plugin.`)];
  return { path: path.posix.join(outRoot, normalized), contents: withHeader(lines[0]!, contents, lines.slice(1)) };
}

/** What the pipeline shares with every plugin of a run. */
export interface PluginRunShared {
  model: ApiModel;
  outRoot: string;
  out: OutputDirs;
  document: Readonly<Record<string, unknown>>;
  header: string;
  templates: TemplateEngine;
  contractImport: 'package' | 'relative';
  typeLayer(): Promise<string>;
  warn(warning: EmitWarning): void;
}

/**
 * Paygate's own emitters write their files complete (header included, at project-relative paths) through this hook,
 * which is not part of the public context: a project's plugin always gets the header (./core.ts).
 */
const rawSinks = new WeakMap<PluginContext, (file: GeneratedFile) => void>();

/** The raw file sink of a context the pipeline made (for ./core.ts only). */
export function rawSinkOf(ctx: PluginContext): ((file: GeneratedFile) => void) | undefined {
  return rawSinks.get(ctx);
}

/** Runs one plugin and returns its files (project-relative paths, headers on). */
export async function runPlugin(plugin: PaygatePlugin, shared: PluginRunShared): Promise<GeneratedFile[]> {
  const files: GeneratedFile[] = [];
  const ctx: PluginContext = Object.freeze({
    outRoot: shared.outRoot,
    out: shared.out,
    document: shared.document,
    header: shared.header,
    templates: shared.templates,
    typeLayer: shared.typeLayer,
    warn: shared.warn,
    contractImport: (fromFile: string) =>
      contractSpecifier(
        { out: shared.out, contractImport: shared.contractImport },
        path.posix.dirname(path.posix.join(shared.outRoot, fromFile.replace(/\\/g, '/'))),
      ),
    file: (file: string, contents: string) => {
      files.push(pluginFile(plugin.name, shared.outRoot, shared.header, file, contents));
    },
  });
  rawSinks.set(ctx, (file) => files.push(file));
  try {
    await plugin.emit(shared.model, ctx);
  } catch (error) {
    if (error instanceof Error && !error.message.includes(`"${plugin.name}"`)) {
      error.message = `The plugin "${plugin.name}" failed: ${error.message}`;
    }
    throw error;
  }
  return files;
}
