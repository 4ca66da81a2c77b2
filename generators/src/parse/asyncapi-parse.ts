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
import { Parser, fromFile } from '@asyncapi/parser';
import { parse as parseYaml } from 'yaml';

type ParseOutput = Awaited<ReturnType<ReturnType<typeof fromFile>['parse']>>;

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
 * A digest of the bytes of `file` and of every local file its references name, transitively; undefined when a
 * reference is a URL (its bytes are not on the disk) or a file cannot be read or parsed (the parser says why).
 */
export async function contentKey(file: string): Promise<string | undefined> {
  const hash = createHash('sha256');
  const pending = [path.resolve(file)];
  const read = new Set<string>();
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
      return undefined;
    }
    hash.update(`${next}\0${text}\0`);
    for (const ref of refsIn(value)) {
      const target = ref.split('#', 1)[0]!;
      if (target === '') continue;
      if (/^[a-z][a-z\d+.-]*:/i.test(target)) return undefined;
      pending.push(path.resolve(path.dirname(next), decodeURI(target)));
    }
  }
  return hash.digest('base64');
}

/** `fromFile(new Parser(), file).parse()`, once per content of the files it reads (see the file's comment). */
export async function parseAsyncApiFile(file: string): Promise<ParseOutput> {
  const key = await contentKey(file);
  if (key === undefined) return fromFile(new Parser(), file).parse();
  const known = kept.get(key);
  if (known !== undefined) {
    // most recently used last
    kept.delete(key);
    kept.set(key, known);
    return known;
  }
  const parsing = fromFile(new Parser(), file).parse();
  kept.set(key, parsing);
  // a parse that threw is not kept: the next call tries again and says why again
  parsing.catch(() => kept.delete(key));
  if (kept.size > KEPT) kept.delete(kept.keys().next().value!);
  return parsing;
}
