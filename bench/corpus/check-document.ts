/**
 * One document through both tools, in a throwaway project directory:
 * - Paygate as a user runs it: `paygate generate --input openapi.json --out generated` with default flags (every
 *   target, `--lint strict`), strict NodeNext tsc of the output, `paygate docs`, then the scaffold started with no
 *   handlers and probed (scaffold-check.ts). The first stage that fails names the outcome.
 * - openapi-typescript 7 with its default options on the same file, and strict tsc of its output.
 * The CLI runs in-process (runCli with a captured io), so a document costs no process start.
 */
import { copyFile, mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { runCli } from '../../generators/src/cli/main.js';
import type { JsonObject } from '../../packages/contract-tests/src/spec-check/samples.js';
import type { SharedCompiler } from './compiler.js';
import { probeScaffold } from './scaffold-check.js';
import { headAndTail, outline } from './step-output.js';
import type { DocumentResult, PaygateResult, PeerResult } from './types.js';
import { isObj } from '../../generators/src/util/json.js';

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace']);

export interface CheckInput {
  root: string;
  /** Path under the directory's api/ folder. */
  document: string;
  file: string;
  bytes: number;
}

/** A CLI step's exit code, its output's head and tail (step-output.ts) and the warnings counted over all of it. */
async function cli(argv: string[], cwd: string): Promise<{ code: number; out: string; warnings: number }> {
  let out = '';
  const io = { cwd, stdout: (t: string) => void (out += t.length > 4000 ? '' : t), stderr: (t: string) => void (out += t) };
  const code = await runCli(argv, io);
  return { code, out: headAndTail(out), warnings: (out.match(/^\s*warning/gim) ?? []).length };
}

async function tsFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => e.isFile() && e.name.endsWith('.ts')).map((e) => path.join(e.parentPath, e.name));
}

async function checkPaygate(dir: string, document: JsonObject, compiler: SharedCompiler): Promise<PaygateResult> {
  const ms: PaygateResult['ms'] = {};
  let started = performance.now();
  let generated: { code: number; out: string; warnings: number };
  try {
    generated = await cli(['generate', '--input', 'openapi.json', '--out', 'generated'], dir);
  } catch (error) {
    return { outcome: 'generate-crashed', message: String((error as Error).stack ?? error).slice(0, 2000), ms };
  }
  ms.generate = performance.now() - started;
  if (generated.code !== 0) return { outcome: 'refused', message: outline(generated.out), ms };
  const { warnings } = generated;
  const compiled = compiler.compile(dir, await tsFiles(path.join(dir, 'generated')));
  ms.tsc = compiled.ms;
  if (compiled.errors > 0)
    return { outcome: 'tsc-errors', message: `${compiled.errors} error(s)`, diagnostics: compiled.diagnostics, warnings, ms };
  started = performance.now();
  try {
    const docs = await cli(['docs', '--input', 'openapi.json', '--out', 'site'], dir);
    ms.docs = performance.now() - started;
    if (docs.code !== 0) return { outcome: 'docs-failed', message: outline(docs.out), warnings, ms };
  } catch (error) {
    return { outcome: 'docs-failed', message: String((error as Error).stack ?? error).slice(0, 2000), warnings, ms };
  }
  await rm(path.join(dir, 'site'), { recursive: true, force: true });
  started = performance.now();
  const scaffold = await probeScaffold(dir, document);
  ms.scaffold = performance.now() - started;
  if (scaffold.refused !== undefined) return { outcome: 'scaffold-refused', message: scaffold.refused, warnings, ms };
  if (scaffold.probeFailed !== undefined) return { outcome: 'probe-failed', message: scaffold.probeFailed, warnings, ms };
  const probe = scaffold.probe!;
  return { outcome: probe.exceptionCount === 0 ? 'ok' : 'answers-nonconforming', warnings, ms, probe };
}

async function checkPeer(dir: string, file: string, compiler: SharedCompiler): Promise<PeerResult> {
  const ms: PeerResult['ms'] = {};
  const started = performance.now();
  let text: string;
  try {
    text = astToString(await openapiTS(pathToFileURL(file), { silent: true }));
  } catch (error) {
    return { outcome: 'refused', message: String((error as Error).message ?? error).slice(0, 2000), ms };
  }
  ms.generate = performance.now() - started;
  const out = path.join(dir, 'peer', 'types.ts');
  await mkdir(path.dirname(out), { recursive: true });
  await writeFile(out, text);
  const compiled = compiler.compile(dir, [out]);
  ms.tsc = compiled.ms;
  return compiled.errors === 0
    ? { outcome: 'ok', ms }
    : { outcome: 'tsc-errors', message: `${compiled.errors} error(s)`, diagnostics: compiled.diagnostics, ms };
}

function describe(document: JsonObject): Pick<DocumentResult, 'openapi' | 'operations' | 'licence' | 'origin'> {
  const info = isObj(document['info']) ? document['info'] : {};
  const licence = isObj(info['license']) && typeof info['license']['name'] === 'string' ? info['license']['name'] : null;
  const origins = Array.isArray(info['x-origin']) ? info['x-origin'] : [];
  const origin = origins.map((o) => (isObj(o) && typeof o['url'] === 'string' ? o['url'] : null)).find((u) => u !== null) ?? null;
  let operations = 0;
  for (const item of Object.values(isObj(document['paths']) ? document['paths'] : {}))
    if (isObj(item)) operations += Object.keys(item).filter((k) => METHODS.has(k)).length;
  return { openapi: String(document['openapi'] ?? document['swagger'] ?? '?'), operations, licence, origin };
}

/** Both tools on one document; the project directory is removed afterwards. */
export async function checkDocument(
  input: CheckInput,
  compiler: SharedCompiler,
  readDocument: () => Promise<JsonObject>,
): Promise<Omit<DocumentResult, 'rssMiB'>> {
  const started = performance.now();
  const dir = await mkdtemp(path.join(tmpdir(), 'paygate-corpus-'));
  try {
    await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name: 'corpus-document', private: true, type: 'module' }));
    await symlink(path.join(input.root, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    await copyFile(input.file, path.join(dir, 'openapi.json'));
    const document = await readDocument();
    const paygate = await checkPaygate(dir, document, compiler);
    const peer = await checkPeer(dir, path.join(dir, 'openapi.json'), compiler);
    return { document: input.document, bytes: input.bytes, ...describe(document), paygate, peer, ms: performance.now() - started };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
