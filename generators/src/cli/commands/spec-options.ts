/**
 * The spec and output flags `paygate generate` and `paygate check` share, parsed with node:util parseArgs (flags
 * are declared once; unknown flags and missing values become a UsageError naming the flag).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { DEFAULT_TARGETS, TARGETS, type Target } from '../../emit/context.js';
import type { GenerateOptions } from '../../pipeline.js';
import type { LintMode } from '../../parse/openapi.js';
import { EnvironmentError, UsageError } from '../command.js';
import { loadConfig, type LoadedConfig } from '../config.js';

export const SPEC_FLAGS_USAGE = `  --input FILE          the OpenAPI 3.0/3.1 root document (default openapi/openapi.yaml)
  --asyncapi FILE|none  an AsyncAPI 3.0 document with more events (default asyncapi.yaml beside --input, when it exists)
  --lint-config FILE    Redocly config with lint rules (default redocly.yaml beside --input, when it exists)
  --lint MODE           strict (default: lint errors stop generation; without a lint config only structural
                        errors do, style rules such as no-server-trailing-slash warn), report (print them) or skip
  --out DIR             output directory: DIR/contract, DIR/server, DIR/client, DIR/webhooks (default generated;
                        in the Paygate repository: the packages' src/generated folders)
  --targets LIST        comma-separated, any of ${DEFAULT_TARGETS.join(', ')} (default all four)
  --templates DIR       templates that replace the built-in ones of the same name (\`paygate templates eject\`)
  --lint-details        every lint warning on its own line (default: a summary per rule, three locations each)
  --config FILE         the config file (default paygate.config.{ts,mts,mjs,js,json} here, else package.json's
                        "paygate" key); a flag overrides the same setting of the file`;

const FLAGS = {
  input: { type: 'string' },
  asyncapi: { type: 'string' },
  'lint-config': { type: 'string' },
  lint: { type: 'string' },
  out: { type: 'string' },
  targets: { type: 'string' },
  templates: { type: 'string' },
  'lint-details': { type: 'boolean' },
  config: { type: 'string' },
} as const satisfies ParseArgsConfig['options'];

/** What the pipeline needs, resolved against the working directory, plus where files go. */
export interface SpecOptions {
  generate: GenerateOptions;
  /** The directory output paths are relative to. */
  rootDir: string;
  /** True when writing into this repository's own packages (the committed, drift-checked layout). */
  workspaceLayout: boolean;
  /** Every lint warning on its own line instead of the summary per rule (D373 lint warnings grouped per rule). */
  lintDetails: boolean;
  /** The config file read (relative to cwd), and the files watch mode restarts on. */
  config: LoadedConfig;
}

/** Parses argv with node:util parseArgs, turning its errors into a UsageError (exit 2). */
export function parseFlags<T extends NonNullable<ParseArgsConfig['options']>>(
  argv: readonly string[],
  options: T,
): ReturnType<typeof parseArgs<{ options: T; strict: true; allowPositionals: false }>>['values'] {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals: false, strict: true }).values;
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/**
 * True in a checkout of the Paygate repository (its root package.json lists the @paygate workspaces): without --out,
 * generation there writes the packages' committed `src/generated` folders, exactly like `npm run generate`.
 */
export function isPaygateRepository(dir: string): boolean {
  try {
    const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: unknown; workspaces?: unknown };
    return pkg.name === 'paygate' && Array.isArray(pkg.workspaces) && existsSync(path.join(dir, 'packages/contract/src/types.ts'));
  } catch {
    return false;
  }
}

function besideInput(input: string, name: string, cwd: string): string | undefined {
  const candidate = path.join(path.dirname(input), name);
  return existsSync(path.resolve(cwd, candidate)) ? candidate : undefined;
}

/** Reads the config file (`--config`, else the one in cwd) and parses the flags over it. */
export async function loadSpecOptions(argv: readonly string[], cwd: string): Promise<SpecOptions> {
  return parseSpecOptions(argv, cwd, await loadConfig(cwd, parseFlags(argv, FLAGS).config));
}

const NO_CONFIG: LoadedConfig = { source: undefined, config: {}, plugins: [], files: [] };

/** The flags over a loaded config (D372: a flag overrides the file's setting). */
export function parseSpecOptions(argv: readonly string[], cwd: string, loaded: LoadedConfig = NO_CONFIG): SpecOptions {
  const flags = parseFlags(argv, FLAGS);
  const { config } = loaded;
  const input = flags.input ?? config.input ?? 'openapi/openapi.yaml';
  if (!existsSync(path.resolve(cwd, input))) {
    throw new EnvironmentError(
      `The OpenAPI document ${path.resolve(cwd, input)} does not exist. Pass your root document with --input FILE (OpenAPI 3.0 or 3.1, YAML or JSON).`,
    );
  }
  const lint = flags.lint ?? config.lint ?? 'strict';
  if (lint !== 'strict' && lint !== 'report' && lint !== 'skip')
    throw new UsageError(`--lint takes strict, report or skip, not ${JSON.stringify(lint)}`);
  let targets: Target[] = [...(config.targets ?? DEFAULT_TARGETS)];
  if (flags.targets !== undefined) {
    const named = flags.targets.split(',').map((t) => t.trim());
    const unknown = named.filter((t) => !(DEFAULT_TARGETS as readonly string[]).includes(t));
    if (unknown.length > 0) {
      const hint = unknown.includes('docs') ? ' (the reference site is `paygate docs`)' : '';
      throw new UsageError(`--targets takes ${DEFAULT_TARGETS.join(', ')}; unknown: ${unknown.join(', ')}${hint}`);
    }
    targets = named.filter((t): t is Target => (TARGETS as readonly string[]).includes(t));
  }
  const asyncapi =
    flags.asyncapi === 'none'
      ? null
      : (flags.asyncapi ?? (config.asyncapi === undefined ? besideInput(input, 'asyncapi.yaml', cwd) : config.asyncapi) ?? null);
  if (asyncapi !== null && !existsSync(path.resolve(cwd, asyncapi))) {
    throw new EnvironmentError(
      `The AsyncAPI document ${path.resolve(cwd, asyncapi)} does not exist. Fix --asyncapi, or pass --asyncapi none.`,
    );
  }
  const lintConfig = flags['lint-config'] ?? config.lintConfig ?? besideInput(input, 'redocly.yaml', cwd);
  const outFlag = flags.out ?? config.out;
  const workspaceLayout = outFlag === undefined && config.outputs === undefined && isPaygateRepository(cwd);
  const templates = flags.templates ?? config.templates;
  if (templates !== undefined && !existsSync(path.resolve(cwd, templates))) {
    throw new EnvironmentError(
      `The templates folder ${path.resolve(cwd, templates)} does not exist. Create it with \`paygate templates eject [NAME] --out ${templates}\`.`,
    );
  }
  // Output paths are relative to the working directory with `/` separators (the pipeline joins them to it).
  const out =
    path
      .relative(cwd, path.resolve(cwd, outFlag ?? 'generated'))
      .split(path.sep)
      .join('/') || '.';
  const generate: GenerateOptions = {
    rootDir: cwd,
    openapi: input,
    asyncapi,
    lintConfig,
    lint: lint satisfies LintMode,
    targets,
    plugins: loaded.plugins,
    ...(templates === undefined ? {} : { templatesOverrideDir: path.resolve(cwd, templates) }),
    ...(workspaceLayout
      ? {}
      : {
          // A project of its own: its contract sits beside the other targets (imported by relative path) and the
          // runtimes come from the installed @paygate packages, never from a path into this repository.
          out: {
            contract: `${out}/contract`,
            server: `${out}/server`,
            client: `${out}/client`,
            webhooks: `${out}/webhooks`,
            ...config.outputs,
          },
          outRoot: out,
          contractImport: 'relative',
          runtimeImport: 'package',
          regenerateCommand: 'npx paygate generate',
        }),
  };
  return { generate, rootDir: cwd, workspaceLayout, lintDetails: flags['lint-details'] ?? config.lintDetails ?? false, config: loaded };
}
