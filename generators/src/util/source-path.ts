/**
 * The spec path a generated header records (decision D204: `paygate check` independent of how `--input` is spelled).
 *
 * The header names the document generated code comes from, and `paygate check` compares bytes: recording `--input` as
 * typed made `./api.yaml`, `api.yaml`, an absolute path and a run from another directory four different outputs of one
 * spec. The path recorded is the document's path relative to its project root, the nearest directory at or above the
 * document that holds a `package.json` or a `.git` (the project the spec belongs to, wherever the command runs from),
 * with `/` separators; a document in no project is named by its file name alone. Every spelling, every working
 * directory and every checkout of the project gives the same text.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';

const PROJECT_MARKERS = ['package.json', '.git'];

/** The nearest directory at or above `dir` that holds a project marker, or undefined. */
export function projectRootOf(dir: string): string | undefined {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    if (PROJECT_MARKERS.some((marker) => existsSync(path.join(current, marker)))) return current;
    if (path.dirname(current) === current) return undefined;
  }
}

/** `file` (absolute, or relative to `cwd`) as the header records it: relative to its project root, `/`-separated. */
export function recordedSourcePath(file: string, cwd: string): string {
  const absolute = path.resolve(cwd, file);
  const root = projectRootOf(path.dirname(absolute));
  const relative = root === undefined ? path.basename(absolute) : path.relative(root, absolute);
  return relative.split(path.sep).join('/');
}
