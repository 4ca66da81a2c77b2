/**
 * What `paygate generate --watch` keeps between runs (D440, incremental underneath): the lint result and the bundled
 * document by the content of every file the bundle read, the type layer by unit (type-layer-cache.ts), and emitted
 * units by a digest of what they read (`memo`). One cache serves one project: its `salt` (the generator's version, the
 * templates, the options that shape the output) is compared on every run and a different one empties the emitted
 * units, so a changed template, plugin list, config or generator never reuses a stale unit; the lint and bundle have
 * their own key (the lint settings, the generator's version, each file's bytes). Nothing is written to disk.
 */
import type { LintProblem } from '../parse/openapi.js';
import { ExampleValidators } from '../parse/media-type-examples.js';
import { TypeLayerCache } from './type-layer-cache.js';

/** The lint and the bundle of a document, reused while every file it read has the same bytes. */
export interface CachedLoad {
  /** Digest of the lint settings and of each file the bundle read (path and text). */
  key: string;
  files: string[];
  problems: LintProblem[];
  /**
   * The bundled document, shared with the next run as the pipeline shares it between emitters: every reader treats
   * it as read-only (the normalisers copy on write, the type layer clones it).
   */
  document: Record<string, unknown>;
}

export interface GenerateCacheStats {
  /** Whether the lint and bundle of the last run were reused. */
  loadReused: boolean;
  /** Memoised units reused and computed in the last run, by name. */
  reused: string[];
  computed: string[];
}

export class GenerateCache {
  typeLayer = new TypeLayerCache();
  load: CachedLoad | undefined;
  /**
   * The lint's compiled media-type example validators (D444 media-type examples checked by a Paygate rule with
   * validators kept across runs; D446 one Ajv kept across lints for the example schemas that use `$ref`), by the
   * content of the schemas each reads: kept whatever the salt, a validator depends on nothing else.
   */
  readonly exampleValidators = new ExampleValidators();
  private salt: string | undefined;
  private memos = new Map<string, { key: string; value: unknown }>();
  lastRun: GenerateCacheStats = { loadReused: false, reused: [], computed: [] };

  /**
   * Starts a run: a salt other than the last run's (another generator version, templates, plugins or options) drops
   * everything cached.
   */
  begin(salt: string): void {
    if (salt !== this.salt) {
      // the lint and bundle are kept: their key is the lint settings, the files' bytes and the generator's version
      this.typeLayer = new TypeLayerCache();
      this.memos.clear();
      this.salt = salt;
    }
    this.lastRun = { loadReused: false, reused: [], computed: [] };
  }

  /** `compute()`'s value, or the last one computed under `name` when `key` (a digest of everything it reads) is the same. */
  memo<T>(name: string, key: string, compute: () => T): T {
    const hit = this.memos.get(name);
    if (hit !== undefined && hit.key === key) {
      this.lastRun.reused.push(name);
      return hit.value as T;
    }
    const value = compute();
    this.memos.set(name, { key, value });
    this.lastRun.computed.push(name);
    return value;
  }
}
