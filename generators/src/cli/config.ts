/**
 * One config file for the generating commands (D372 paygate.config files): `paygate.config.{ts,mts,mjs,js,json}` in the working directory,
 * or a `paygate` key in its package.json (or the file `--config FILE` names). `generate`, `check`, `docs` and `diff`
 * read it; a flag given on the command line overrides the same setting of the file. Paths in the file are relative to
 * the file's directory. A JSON config names its plugins by module path; a JavaScript or TypeScript one may also hold
 * them inline (`definePlugin`).
 *
 *   // paygate.config.mjs
 *   import { defineConfig } from '@paygate/cli';
 *   export default defineConfig({ input: 'openapi.yaml', out: 'src/generated', plugins: ['./plugins/ids.mjs'] });
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_TARGETS, type Target } from '../emit/context.js';
import { assertPlugin, type PaygatePlugin } from '../plugins/api.js';
import type { ConfigOutputs, PaygateConfig } from '../plugins/config.js';
import { EnvironmentError } from './command.js';
import { didYouMean } from './did-you-mean.js';

/** The config files looked for in the working directory, in this order (then package.json's `paygate` key). */
export const CONFIG_FILES = [
  'paygate.config.ts',
  'paygate.config.mts',
  'paygate.config.mjs',
  'paygate.config.js',
  'paygate.config.json',
] as const;

/** A config read and checked, with its paths relative to the working directory and its plugins loaded. */
export interface LoadedConfig {
  /** Where it came from (relative to cwd; `package.json#paygate`), undefined without one. */
  source: string | undefined;
  config: Omit<PaygateConfig, 'plugins'>;
  plugins: PaygatePlugin[];
  /** Absolute paths of the config file and of the plugin modules it names (watch mode restarts on their change). */
  files: string[];
}

const KEYS: readonly (keyof PaygateConfig)[] = [
  'input',
  'asyncapi',
  'lintConfig',
  'lint',
  'lintDetails',
  'out',
  'outputs',
  'targets',
  'plugins',
  'templates',
  'docs',
];

/** Imports a config or plugin module; TypeScript through tsx when Node cannot load it by itself. */
async function importModule(file: string): Promise<Record<string, unknown>> {
  const url = pathToFileURL(file).href;
  try {
    return (await import(url)) as Record<string, unknown>;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== 'ERR_UNKNOWN_FILE_EXTENSION' || !/\.[mc]?ts$/.test(file)) throw error;
  }
  let tsx: { tsImport(specifier: string, parent: string): Promise<unknown> };
  try {
    tsx = (await import('tsx/esm/api')) as typeof tsx;
  } catch {
    throw new EnvironmentError(
      `${file} is TypeScript, which Node cannot load by itself: install tsx (npm install --save-dev tsx), or write the file as .mjs.`,
    );
  }
  return (await tsx.tsImport(url, import.meta.url)) as Record<string, unknown>;
}

function fail(source: string, message: string): never {
  throw new EnvironmentError(`${source}: ${message}`);
}

/** Finds the config (`explicit` = `--config FILE`), reads, checks and resolves it. */
export async function loadConfig(cwd: string, explicit?: string): Promise<LoadedConfig> {
  let file: string | undefined;
  let raw: unknown;
  let source: string | undefined;
  if (explicit !== undefined) {
    file = path.resolve(cwd, explicit);
    if (!existsSync(file)) throw new EnvironmentError(`The config file ${file} (--config) does not exist.`);
  } else {
    const found = CONFIG_FILES.map((name) => path.join(cwd, name)).find((candidate) => existsSync(candidate));
    file = found;
  }
  if (file !== undefined) {
    source = path.relative(cwd, file) || file;
    if (file.endsWith('.json')) {
      const text = readFileSync(file, 'utf8');
      try {
        raw = JSON.parse(text);
      } catch (error) {
        fail(source, `not valid JSON (${(error as Error).message}).`);
      }
      if (path.basename(file) === 'package.json') raw = (raw as { paygate?: unknown }).paygate ?? {};
    } else {
      const module = await importModule(file);
      raw = module.default ?? module.config;
      if (raw === undefined) fail(source, 'export the config as the default export (export default defineConfig({ ... })).');
    }
  } else {
    const pkg = path.join(cwd, 'package.json');
    if (existsSync(pkg)) {
      const value = (JSON.parse(readFileSync(pkg, 'utf8')) as { paygate?: unknown }).paygate;
      if (value !== undefined) {
        file = pkg;
        source = 'package.json#paygate';
        raw = value;
      }
    }
  }
  if (file === undefined || source === undefined) return { source: undefined, config: {}, plugins: [], files: [] };
  return resolveConfig(raw, { cwd, file, source });
}

/** Checks every key of a config and makes its paths relative to cwd; loads its plugins. */
export async function resolveConfig(raw: unknown, where: { cwd: string; file: string; source: string }): Promise<LoadedConfig> {
  const { cwd, file, source } = where;
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) fail(source, 'the config is an object of settings.');
  const input = raw as Record<string, unknown>;
  for (const key of Object.keys(input)) {
    if (!(KEYS as readonly string[]).includes(key)) {
      fail(source, `unknown setting "${key}".${didYouMean(key, KEYS)} Settings: ${KEYS.join(', ')}.`);
    }
  }
  const dir = path.dirname(file);
  /** A path of the config, relative to cwd with `/` separators (what the pipeline takes). */
  const fromConfig = (p: string) => path.relative(cwd, path.resolve(dir, p)).split(path.sep).join('/') || '.';
  const text = (key: string, value: unknown): string | undefined => {
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || value === '') fail(source, `"${key}" is a path (a non-empty string).`);
    return value;
  };
  const config: LoadedConfig['config'] = {};
  const inputPath = text('input', input.input);
  if (inputPath !== undefined) config.input = fromConfig(inputPath);
  if (input.asyncapi === null || input.asyncapi === 'none') config.asyncapi = null;
  else {
    const asyncapi = text('asyncapi', input.asyncapi);
    if (asyncapi !== undefined) config.asyncapi = fromConfig(asyncapi);
  }
  const lintConfig = text('lintConfig', input.lintConfig);
  if (lintConfig !== undefined) config.lintConfig = fromConfig(lintConfig);
  if (input.lint !== undefined) {
    if (input.lint !== 'strict' && input.lint !== 'report' && input.lint !== 'skip')
      fail(source, `"lint" is strict, report or skip, not ${JSON.stringify(input.lint)}.`);
    config.lint = input.lint;
  }
  if (input.lintDetails !== undefined) {
    if (typeof input.lintDetails !== 'boolean') fail(source, '"lintDetails" is true or false.');
    config.lintDetails = input.lintDetails;
  }
  const out = text('out', input.out);
  if (out !== undefined) config.out = fromConfig(out);
  if (input.outputs !== undefined) {
    if (input.outputs === null || typeof input.outputs !== 'object') fail(source, '"outputs" maps a target to its directory.');
    const outputs: ConfigOutputs = {};
    for (const [target, value] of Object.entries(input.outputs as Record<string, unknown>)) {
      if (!(DEFAULT_TARGETS as readonly string[]).includes(target))
        fail(source, `"outputs" has "${target}"; its keys are ${DEFAULT_TARGETS.join(', ')}.${didYouMean(target, DEFAULT_TARGETS)}`);
      outputs[target as keyof ConfigOutputs] = fromConfig(text(`outputs.${target}`, value)!);
    }
    config.outputs = outputs;
  }
  if (input.targets !== undefined) {
    if (!Array.isArray(input.targets) || input.targets.some((t) => !(DEFAULT_TARGETS as readonly unknown[]).includes(t)))
      fail(source, `"targets" is a list of ${DEFAULT_TARGETS.join(', ')}.`);
    config.targets = input.targets as Target[];
  }
  const templates = text('templates', input.templates);
  if (templates !== undefined) config.templates = fromConfig(templates);
  if (input.docs !== undefined) {
    const docs = input.docs as Record<string, unknown> | null;
    if (docs === null || typeof docs !== 'object' || Object.keys(docs).some((k) => k !== 'out')) fail(source, '"docs" is { out: DIR }.');
    const docsOut = text('docs.out', docs.out);
    config.docs = docsOut === undefined ? {} : { out: fromConfig(docsOut) };
  }
  const files = [file];
  const plugins: PaygatePlugin[] = [];
  if (input.plugins !== undefined) {
    if (!Array.isArray(input.plugins)) fail(source, '"plugins" is a list of plugins or module paths.');
    for (const [index, entry] of input.plugins.entries()) {
      let plugin: unknown = entry;
      const at = `${source} plugins[${index}]`;
      if (typeof entry === 'string') {
        const resolved = resolvePluginModule(entry, dir, at);
        files.push(resolved);
        const module = await importModule(resolved);
        plugin = module.default ?? module.plugin;
      }
      try {
        assertPlugin(plugin, at);
      } catch (error) {
        throw new EnvironmentError((error as Error).message);
      }
      plugins.push(plugin);
    }
  }
  return { source, config, plugins, files };
}

/** A plugin named by path (relative to the config's folder) or package name, to an absolute file. */
function resolvePluginModule(specifier: string, dir: string, at: string): string {
  if (specifier.startsWith('.') || path.isAbsolute(specifier)) {
    const file = path.resolve(dir, specifier);
    if (!existsSync(file)) throw new EnvironmentError(`${at}: ${file} does not exist.`);
    return file;
  }
  try {
    return createRequire(path.join(dir, 'package.json')).resolve(specifier);
  } catch {
    throw new EnvironmentError(
      `${at}: cannot find the package ${specifier}; install it, or name the plugin's file by a path starting with ./`,
    );
  }
}
