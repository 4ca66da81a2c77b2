/**
 * Releasing the current contract: `<version>.json` + `<version>.asyncapi.json` in `openapi/released/`, an entry in
 * `releases.yaml`, and an emptied allow file (its exceptions are now part of the released baseline). Refuses a
 * version that is already released with other content, older than the newest release, or that fails the gate.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import semver from 'semver';
import { runCompat, specVersion } from './compat.js';
import type { FailOn } from './types.js';
import { renderAllowFile } from './gate.js';
import { loadSnapshotFromFile } from './load.js';
import {
  ALLOW_FILE,
  RELEASES_FILE,
  readReleases,
  releasedAsyncApiFile,
  releasedOpenApiFile,
  releasedVersions,
  renderReleases,
} from './released.js';

export interface ReleaseOptions {
  cwd: string;
  spec: string;
  releasedDir: string;
  /** YYYY-MM-DD recorded in releases.yaml. */
  date: string;
  /** The gate's level (default `breaking`): `npm run release` passes Paygate's own. */
  failOn?: FailOn;
  progress?: (line: string) => void;
}

export type ReleaseOutcome =
  | { status: 'released'; version: string; files: string[] }
  | { status: 'unchanged'; version: string }
  /** The user must change something first; `message` says what. */
  | { status: 'refused'; message: string };

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

export async function release(options: ReleaseOptions): Promise<ReleaseOutcome> {
  const dir = path.resolve(options.cwd, options.releasedDir);
  options.progress?.(`bundling ${options.spec}`);
  const current = await loadSnapshotFromFile(options.spec, options.cwd);
  const version = specVersion(current);
  if (semver.valid(version) === null) {
    return {
      status: 'refused',
      message: `info.version ${JSON.stringify(version)} in ${options.spec} is not a semantic version (MAJOR.MINOR.PATCH): set one and run again.`,
    };
  }
  const openapiFile = path.join(dir, releasedOpenApiFile(version));
  const versions = releasedVersions(dir);
  if (versions.includes(version)) {
    const stored = await readFile(openapiFile, 'utf8');
    if (stored === json(current.openapi)) return { status: 'unchanged', version };
    return {
      status: 'refused',
      message: `${version} is already released (${path.join(options.releasedDir, releasedOpenApiFile(version))}) and ${options.spec} changed since: bump info.version (patch: wording, minor: additions, major: breaking changes) and run again.`,
    };
  }
  const newest = versions[versions.length - 1];
  if (newest !== undefined) {
    if (semver.lt(version, newest)) {
      return {
        status: 'refused',
        message: `info.version ${version} in ${options.spec} is older than the newest release ${newest}: set a higher version.`,
      };
    }
    const compat = await runCompat({
      cwd: options.cwd,
      spec: options.spec,
      releasedDir: options.releasedDir,
      ...(options.failOn ? { failOn: options.failOn } : {}),
      ...(options.progress ? { progress: options.progress } : {}),
    });
    if (!compat.result.passed) return { status: 'refused', message: `not released: ${compat.report}` };
  }

  await mkdir(dir, { recursive: true });
  const files = [releasedOpenApiFile(version)];
  await writeFile(openapiFile, json(current.openapi));
  if (current.asyncapi !== undefined) {
    await writeFile(path.join(dir, releasedAsyncApiFile(version)), json(current.asyncapi));
    files.push(releasedAsyncApiFile(version));
  }
  const releases = (await readReleases(dir)).filter((r) => r.version !== version);
  await writeFile(path.join(dir, RELEASES_FILE), renderReleases([...releases, { version, date: options.date }]));
  files.push(RELEASES_FILE);
  const allowFile = path.join(dir, ALLOW_FILE);
  const emptied = renderAllowFile([]);
  if (!existsSync(allowFile) || (await readFile(allowFile, 'utf8')) !== emptied) {
    await writeFile(allowFile, emptied);
    files.push(ALLOW_FILE);
  }
  // The stored document must read back as the same contract, or later diffs would report phantom changes.
  const stored = await loadSnapshotFromFile(path.join(options.releasedDir, releasedOpenApiFile(version)), options.cwd);
  if (json(stored.openapi) !== json(current.openapi))
    throw new Error(
      `${openapiFile} does not read back as the bundled ${options.spec}: report this as a bug in generators/src/diff/release.ts`,
    );
  return { status: 'released', version, files: files.map((f) => path.join(options.releasedDir, f)) };
}
