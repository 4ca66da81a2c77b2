/**
 * The changelog's data: the changes between consecutive released contracts (openapi/released/) and the unreleased
 * ones (the current spec against the newest release), newest first. Dates come from releases.yaml, so the page
 * rendered from this is the same on every build.
 */
import path from 'node:path';
import { compareContracts } from './compare.js';
import { loadSnapshotFromFile } from './load.js';
import { readReleases, releasedOpenApiFile, releasedVersions } from './released.js';
import { countByClassification } from './report.js';
import { CLASSIFICATIONS, type Change, type Classification, type ContractSnapshot } from './types.js';

export interface ChangelogGroup {
  classification: Classification;
  changes: Change[];
}

export interface ChangelogSection {
  /** A released version, or `Unreleased`. */
  title: string;
  /** YYYY-MM-DD for a release ('' when releases.yaml does not list it or for unreleased changes). */
  date: string;
  /** The version compared against (undefined for the first release: the baseline). */
  previous: string | undefined;
  counts: Record<Classification, number>;
  /** Non-empty groups, breaking first. */
  groups: ChangelogGroup[];
}

export interface Changelog {
  sections: ChangelogSection[];
}

export interface ChangelogOptions {
  cwd: string;
  spec: string;
  releasedDir: string;
  progress?: (line: string) => void;
}

function section(title: string, date: string, previous: string | undefined, changes: Change[]): ChangelogSection {
  return {
    title,
    date,
    previous,
    counts: countByClassification(changes),
    groups: CLASSIFICATIONS.map((classification) => ({
      classification,
      changes: changes.filter((c) => c.classification === classification),
    })).filter((g) => g.changes.length > 0),
  };
}

export async function buildChangelog(options: ChangelogOptions): Promise<Changelog> {
  const dir = path.resolve(options.cwd, options.releasedDir);
  const versions = releasedVersions(dir);
  const dates = new Map((await readReleases(dir)).map((r) => [r.version, r.date]));
  const snapshots = new Map<string, ContractSnapshot>();
  for (const version of versions) {
    options.progress?.(`changelog: reading released ${version}`);
    snapshots.set(version, await loadSnapshotFromFile(path.join(options.releasedDir, releasedOpenApiFile(version)), options.cwd, version));
  }
  const sections: ChangelogSection[] = [];
  const newest = versions[versions.length - 1];
  if (newest !== undefined) {
    const current = await loadSnapshotFromFile(options.spec, options.cwd);
    sections.push(section('Unreleased', '', newest, compareContracts(snapshots.get(newest)!, current)));
  }
  for (let i = versions.length - 1; i >= 0; i--) {
    const version = versions[i]!;
    const previous = versions[i - 1];
    const changes = previous === undefined ? [] : compareContracts(snapshots.get(previous)!, snapshots.get(version)!);
    sections.push(section(version, dates.get(version) ?? '', previous, changes));
  }
  return { sections };
}
