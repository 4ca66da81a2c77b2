/**
 * A content hash of a build's inputs, so a build whose inputs did not change can be skipped (`npm start` reuses the
 * docs site). Files are read in sorted path order, so the hash depends on paths and bytes only, never on mtimes or
 * the order the file system lists them in.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Where a built directory keeps the hash of the inputs it was built from. */
const HASH_FILE = '.inputs-hash';

function filesUnder(root: string, relative: string, out: string[]): void {
  const full = path.join(root, relative);
  if (!existsSync(full)) return;
  if (statSync(full).isFile()) {
    out.push(relative);
    return;
  }
  for (const entry of readdirSync(full).sort()) {
    if (entry === 'node_modules' || entry === 'dist') continue;
    filesUnder(root, path.join(relative, entry), out);
  }
}

/** sha256 over every file under `inputs` (paths relative to `root`; a missing input counts as absent). */
export function hashInputs(root: string, inputs: readonly string[]): string {
  const files: string[] = [];
  for (const input of inputs) filesUnder(root, input, files);
  const hash = createHash('sha256');
  for (const file of files.sort()) {
    hash.update(`${file.split(path.sep).join('/')}\0`);
    hash.update(readFileSync(path.join(root, file)));
    hash.update('\0');
  }
  return hash.digest('hex');
}

/** The hash a built directory was made from, or undefined (never built, or built before hashes were kept). */
export function readStoredHash(dir: string): string | undefined {
  const file = path.join(dir, HASH_FILE);
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
}

export function writeStoredHash(dir: string, hash: string): void {
  writeFileSync(path.join(dir, HASH_FILE), `${hash}\n`);
}
