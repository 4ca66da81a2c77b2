/** Runs the compatibility gate in a checkout: loads the current spec and the newest released contract, applies the allow file. */
import path from 'node:path';
import { EnvironmentError } from '../cli/command.js';
import { compareContracts } from './compare.js';
import { evaluateGate, formatGate, readAllowFile, type GateInput, type GateResult } from './gate.js';
import { loadSnapshotFromFile } from './load.js';
import { ALLOW_FILE, releasedOpenApiFile, releasedVersions } from './released.js';
import { SpecDoc } from './document.js';
import type { ContractSnapshot, FailOn } from './types.js';

export interface CompatOptions {
  cwd: string;
  /** The current spec, relative to cwd. */
  spec: string;
  /** The released contracts' folder, relative to cwd. */
  releasedDir: string;
  /** Changes of this classification or a more severe one fail the gate (default `breaking`). */
  failOn?: FailOn;
  progress?: (line: string) => void;
}

export interface CompatOutcome {
  input: GateInput;
  result: GateResult;
  current: ContractSnapshot;
  released: ContractSnapshot;
  /** The gate's report: passes, allowed and stale entries, or the failure and what to do. */
  report: string;
}

export function specVersion(snapshot: ContractSnapshot): string {
  const info = snapshot.openapi.info;
  const version = info !== null && typeof info === 'object' && 'version' in info ? info.version : undefined;
  return typeof version === 'string' ? version : '';
}

/** The newest released version in `releasedDir`, or an EnvironmentError saying how to create the baseline. */
export function newestRelease(cwd: string, releasedDir: string): string {
  const versions = releasedVersions(path.resolve(cwd, releasedDir));
  const newest = versions[versions.length - 1];
  if (newest === undefined) {
    throw new EnvironmentError(
      `no released contract in ${releasedDir}: run \`paygate release\` (\`npm run release\` in the Paygate repository) to release the current spec as the baseline, and commit ${releasedDir}.`,
    );
  }
  return newest;
}

export async function runCompat(options: CompatOptions): Promise<CompatOutcome> {
  const newest = newestRelease(options.cwd, options.releasedDir);
  const releasedFile = path.join(options.releasedDir, releasedOpenApiFile(newest));
  options.progress?.(`comparing ${options.spec} with the released ${newest} (${releasedFile})`);
  const [released, current] = await Promise.all([
    loadSnapshotFromFile(releasedFile, options.cwd),
    loadSnapshotFromFile(options.spec, options.cwd),
  ]);
  const allowFile = path.join(options.releasedDir, ALLOW_FILE);
  const input: GateInput = {
    releasedVersion: newest,
    currentVersion: specVersion(current),
    changes: compareContracts(released, current),
    allow: await readAllowFile(path.resolve(options.cwd, allowFile)),
    failOn: options.failOn ?? 'breaking',
    pointerExists: pointerIn([released, current]),
  };
  const result = evaluateGate(input);
  return { input, result, current, released, report: formatGate(result, input, { specFile: options.spec, allowFile, releasedFile }) };
}

/** Whether a pointer names a node of the OpenAPI or AsyncAPI document of one of the snapshots. */
export function pointerIn(snapshots: readonly ContractSnapshot[]): (pointer: string) => boolean {
  const docs = snapshots.flatMap((s) => [new SpecDoc(s.openapi, 'openapi'), ...(s.asyncapi ? [new SpecDoc(s.asyncapi, 'asyncapi')] : [])]);
  return (pointer) => docs.some((d) => d.has(pointer));
}
