/**
 * Reads one version of the contract from a file or a git ref into a ContractSnapshot:
 *
 *   openapi/openapi.yaml                  a working-tree spec (multi-file, bundled by Redocly; asyncapi.yaml beside it)
 *   openapi/released/1.0.0.json           a released contract (1.0.0.asyncapi.json beside it)
 *   origin/main:openapi/openapi.yaml      a spec at a git ref: the folder holding it is materialized from the ref into a
 *                                         temporary directory first, so its `$ref`s resolve against that ref's files
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { EnvironmentError } from '../cli/command.js';
import { loadOpenApi } from '../parse/openapi.js';
import { stripParserKeys } from '../parse/asyncapi.js';
import { parseAsyncApiFile } from '../parse/asyncapi-parse.js';
import type { ContractSnapshot, EventMessage } from './types.js';
import { isObj } from '../util/json.js';

const run = promisify(execFile);
const GIT_BUFFER = 64 * 1024 * 1024;

type Obj = Record<string, unknown>;

/** `<ref>:<path>` when the text is not an existing file and has a colon that is not a Windows drive letter. */
export function parseGitSpec(spec: string, cwd: string): { ref: string; file: string } | undefined {
  if (existsSync(path.resolve(cwd, spec))) return undefined;
  const match = /^([^:]+):(.+)$/.exec(spec);
  if (!match || /^[A-Za-z]$/.test(match[1]!)) return undefined;
  return { ref: match[1]!, file: match[2]! };
}

/** The AsyncAPI file that belongs to an OpenAPI file: `X.asyncapi.json` beside a released `X.json`, else `asyncapi.yaml`. */
export function asyncApiBeside(openapiFile: string): string | undefined {
  const released = openapiFile.replace(/\.json$/, '.asyncapi.json');
  if (released !== openapiFile && existsSync(released)) return released;
  const sibling = path.join(path.dirname(openapiFile), 'asyncapi.yaml');
  return existsSync(sibling) ? sibling : undefined;
}

/** Parses an AsyncAPI document: the whole resolved document and the messages of its channels. */
export async function loadAsyncApiDocument(file: string): Promise<{ document: Obj; events: EventMessage[] }> {
  const { document, diagnostics } = await parseAsyncApiFile(file);
  const errors = diagnostics.filter((d) => d.severity === 0);
  if (document === undefined || errors.length > 0) {
    throw new EnvironmentError(
      `${file} is not a valid AsyncAPI document: ${errors.map((d) => `${d.message} (at ${d.path.join('.')})`).join('; ')}. Fix what it names and run again.`,
    );
  }
  const json = stripParserKeys(document.json());
  if (!isObj(json)) throw new EnvironmentError(`${file}: the AsyncAPI parser returned no document`);
  const events: EventMessage[] = [];
  for (const [channel, item] of Object.entries(isObj(json.channels) ? json.channels : {})) {
    const messages = isObj(item) && isObj(item.messages) ? item.messages : {};
    for (const [message, value] of Object.entries(messages)) {
      if (!isObj(value)) continue;
      events.push({ channel, message, name: typeof value.name === 'string' ? value.name : message, payload: value.payload ?? {} });
    }
  }
  return { document: json, events };
}

/**
 * A `.json` document whose `$ref`s are all local (a released contract, GitHub's or Stripe's published spec) is
 * already bundled: it is read as it is. Bundling a large document again costs seconds and memory for nothing
 * (docs/benchmarks.md#bundling-a-bundled-document; D104 one diff entry per change, at its definition).
 */
async function selfContainedJson(file: string): Promise<Obj | undefined> {
  if (!file.endsWith('.json')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return undefined;
  }
  if (!isObj(parsed)) return undefined;
  const stack: unknown[] = [parsed];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    else if (isObj(node)) {
      if (typeof node.$ref === 'string' && !node.$ref.startsWith('#')) return undefined;
      for (const value of Object.values(node)) if (value !== null && typeof value === 'object') stack.push(value);
    }
  }
  return parsed;
}

/** Loads a snapshot from a file path (relative to cwd). */
export async function loadSnapshotFromFile(file: string, cwd: string, label: string = file): Promise<ContractSnapshot> {
  const absolute = path.resolve(cwd, file);
  if (!existsSync(absolute)) {
    throw new EnvironmentError(
      `${file}: no such file. Give a spec file (openapi/openapi.yaml), a released contract (openapi/released/<version>.json) or <git ref>:<path>.`,
    );
  }
  let openapi: Obj;
  try {
    openapi = (await selfContainedJson(absolute)) ?? (await loadOpenApi({ input: absolute, lint: 'skip', cwd })).document;
  } catch (error) {
    throw new EnvironmentError(
      `${file} could not be read as OpenAPI: ${error instanceof Error ? error.message : String(error)}. Run \`npx paygate generate --input ${file} --out <dir>\` (it lints first and names the lines) and fix what it names.`,
    );
  }
  if (typeof openapi.openapi !== 'string' || !/^3\.[01]\./.test(openapi.openapi)) {
    throw new EnvironmentError(`${file}: not an OpenAPI 3.0/3.1 document (its \`openapi\` field is ${JSON.stringify(openapi.openapi)}).`);
  }
  const asyncFile = asyncApiBeside(absolute);
  const asyncapi = asyncFile === undefined ? undefined : await loadAsyncApiDocument(asyncFile);
  return { label, openapi, events: asyncapi?.events, asyncapi: asyncapi?.document };
}

async function git(cwd: string, args: string[]): Promise<Buffer> {
  const { stdout } = await run('git', args, { cwd, encoding: 'buffer', maxBuffer: GIT_BUFFER });
  return stdout;
}

/** Writes the files of `folder` at `ref` under `target` (same relative paths). */
async function materialize(cwd: string, ref: string, folder: string, target: string): Promise<number> {
  const listing = (await git(cwd, ['ls-tree', '-r', '-z', '--name-only', ref, '--', folder])).toString('utf8');
  const files = listing.split('\0').filter(Boolean);
  for (const file of files) {
    const destination = path.join(target, file);
    await mkdir(path.dirname(destination), { recursive: true });
    await writeFile(destination, await git(cwd, ['show', `${ref}:${file}`]));
  }
  return files.length;
}

/** Loads a snapshot from `<ref>:<path>`: the folder of `path` at `ref` is copied to a temporary directory and read there. */
export async function loadSnapshotFromGit(ref: string, file: string, cwd: string): Promise<ContractSnapshot> {
  const label = `${ref}:${file}`;
  try {
    await git(cwd, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  } catch {
    throw new EnvironmentError(
      `${label}: \`${ref}\` is not a commit in ${cwd}. Check the name (git branch -a) or fetch it first (git fetch origin).`,
    );
  }
  let prefix: string;
  try {
    prefix = (await git(cwd, ['rev-parse', '--show-prefix'])).toString('utf8').trim();
  } catch {
    throw new EnvironmentError(`${cwd} is not inside a git repository, so ${label} cannot be read. Give a file path instead.`);
  }
  // As in `git show <ref>:<path>`: the path is from the repository root, `./path` from the current directory.
  const inRepo = path.posix.normalize(file.startsWith('./') ? path.posix.join(prefix, file) : file);
  const temp = await mkdtemp(path.join(os.tmpdir(), 'paygate-diff-'));
  try {
    const count = await materialize(cwd, ref, path.posix.dirname(inRepo), temp);
    if (count === 0 || !existsSync(path.join(temp, inRepo))) {
      throw new EnvironmentError(
        `${label}: no such file at ${ref} (git ls-tree ${ref} -- ${path.posix.dirname(inRepo)} lists what is there).`,
      );
    }
    return await loadSnapshotFromFile(path.join(temp, inRepo), temp, label);
  } finally {
    await rm(temp, { recursive: true, force: true });
  }
}

/** A file path or `<ref>:<path>`. */
export async function loadSnapshot(spec: string, cwd: string): Promise<ContractSnapshot> {
  const fromGit = parseGitSpec(spec, cwd);
  return fromGit === undefined ? loadSnapshotFromFile(spec, cwd) : loadSnapshotFromGit(fromGit.ref, fromGit.file, cwd);
}
