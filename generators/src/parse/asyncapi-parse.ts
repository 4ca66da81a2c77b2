/**
 * One parse of an AsyncAPI document per content in a process: `@asyncapi/parser` validates a document's structure
 * with Spectral, which compiles the AsyncAPI JSON Schema into a new Ajv instance for every document it is given, about
 * 0.3 CPU-s each time (most of a `paygate diff` or `release` that reads the same unchanged events file again; every
 * save in `paygate generate --watch`; docs/benchmarks.md, "npm test: wall time and CPU"). The parse is kept by the
 * bytes of every file it reads (the document and, transitively, each local file a `$ref` names), so an edit to any of
 * them parses again; a document with a reference off the disk (a URL) is parsed every time. The parsed document is
 * shared: its readers only read it (what they keep, they copy).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { fromFile } from '@asyncapi/parser';
import { parse as parseYaml } from 'yaml';

type ParseOutput = Awaited<ReturnType<ReturnType<typeof fromFile>['parse']>>;

/**
 * `fromFile(new Parser(), file).parse()`, the parser loaded on first use: it is about 0.3 CPU-s of module loading
 * (Spectral and its rulesets), which every `paygate` command paid at start-up although most specs have no AsyncAPI
 * document (docs/benchmarks.md, "npm test: wall time and CPU").
 */
async function parseWithAsyncApiParser(file: string): Promise<ParseOutput> {
  const { Parser, fromFile } = await import('@asyncapi/parser');
  return fromFile(new Parser(), file).parse();
}

/** How many documents a process keeps (a diff reads two versions of one file; a watch run one). */
const KEPT = 8;
const kept = new Map<string, Promise<ParseOutput>>();

/** The `$ref` values in a parsed YAML or JSON value. */
function refsIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) refsIn(v, out);
  else if (value !== null && typeof value === 'object')
    for (const [key, v] of Object.entries(value)) {
      if (key === '$ref' && typeof v === 'string') out.push(v);
      else refsIn(v, out);
    }
  return out;
}

/**
 * The files a parse of `file` reads: the document and every local file its references name, transitively (what
 * `paygate generate --watch` watches), with a digest of their bytes; `key` is undefined when a reference is a URL (its
 * bytes are not on the disk) or a file cannot be read or parsed (the parser says why).
 */
export async function filesRead(file: string): Promise<{ files: string[]; key: string | undefined }> {
  const hash = createHash('sha256');
  const pending = [path.resolve(file)];
  const read = new Set<string>();
  let keyed = true;
  while (pending.length > 0) {
    const next = pending.pop()!;
    if (read.has(next)) continue;
    read.add(next);
    let text: string;
    let value: unknown;
    try {
      text = await readFile(next, 'utf8');
      value = parseYaml(text);
    } catch {
      keyed = false;
      continue;
    }
    hash.update(`${next}\0${text}\0`);
    for (const ref of refsIn(value)) {
      const target = ref.split('#', 1)[0]!;
      if (target === '') continue;
      if (/^[a-z][a-z\d+.-]*:/i.test(target)) keyed = false;
      else pending.push(path.resolve(path.dirname(next), decodeURI(target)));
    }
  }
  return { files: [...read].sort(), key: keyed ? hash.digest('base64') : undefined };
}

/**
 * `fromFile(new Parser(), file).parse()`, once per content of the files it reads (see the file's comment), with the
 * list of those files.
 */
export async function parseAsyncApiFile(file: string): Promise<ParseOutput & { files: string[] }> {
  const { files, key } = await filesRead(file);
  if (key === undefined) return { ...(await parseWithAsyncApiParser(file)), files };
  let parsing = kept.get(key);
  if (parsing !== undefined) {
    // most recently used last
    kept.delete(key);
  } else {
    parsing = parseWithAsyncApiParser(file);
    // a parse that threw is not kept: the next call tries again and says why again
    parsing.catch(() => kept.delete(key));
  }
  kept.set(key, parsing);
  if (kept.size > KEPT) kept.delete(kept.keys().next().value!);
  return { ...(await parsing), files };
}
