/**
 * The released contracts in `openapi/released/`: `<version>.json` (the bundled OpenAPI document),
 * `<version>.asyncapi.json` (the resolved AsyncAPI document), `releases.yaml` (version and date of each release,
 * the changelog's data) and `allowed-breaking-changes.yaml` (the gate's exceptions).
 */
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import semver from 'semver';
import YAML from 'yaml';
import { EnvironmentError } from '../cli/command.js';

export const RELEASED_DIR = 'openapi/released';
export const CURRENT_SPEC = 'openapi/openapi.yaml';
export const RELEASES_FILE = 'releases.yaml';
export const ALLOW_FILE = 'allowed-breaking-changes.yaml';

export const releasedOpenApiFile = (version: string) => `${version}.json`;
export const releasedAsyncApiFile = (version: string) => `${version}.asyncapi.json`;

export interface ReleaseRecord {
  version: string;
  /** YYYY-MM-DD (UTC) the release was made. */
  date: string;
}

/** Versions with a released `<version>.json`, oldest first. */
export function releasedVersions(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json') && !f.endsWith('.asyncapi.json'))
    .map((f) => f.slice(0, -'.json'.length))
    .filter((v) => semver.valid(v) !== null)
    .sort(semver.compare);
}

export async function readReleases(dir: string): Promise<ReleaseRecord[]> {
  const file = path.join(dir, RELEASES_FILE);
  if (!existsSync(file)) return [];
  const parsed: unknown = YAML.parse(await readFile(file, 'utf8'));
  const list = parsed !== null && typeof parsed === 'object' && 'releases' in parsed ? parsed.releases : undefined;
  if (!Array.isArray(list))
    throw new EnvironmentError(
      `${file}: expected \`releases:\` with a list of { version, date }. Restore it from git (git checkout -- ${file}).`,
    );
  return list.map((entry: unknown, i) => {
    const version = entry !== null && typeof entry === 'object' && 'version' in entry ? String(entry.version) : '';
    const date = entry !== null && typeof entry === 'object' && 'date' in entry ? String(entry.date) : '';
    if (semver.valid(version) === null || !/^\d{4}-\d{2}-\d{2}$/.test(date)) {
      throw new EnvironmentError(
        `${file}: releases[${i}] needs a semver \`version\` and a YYYY-MM-DD \`date\` (found ${JSON.stringify(entry)}).`,
      );
    }
    return { version, date };
  });
}

export function renderReleases(releases: readonly ReleaseRecord[]): string {
  const sorted = [...releases].sort((a, b) => semver.compare(a.version, b.version));
  return `# Written by \`npm run release\`: one entry per released contract in this folder (the docs changelog reads it).\n${YAML.stringify({ releases: sorted })}`;
}
