/**
 * D446 (one Ajv kept across lints for the example schemas that use `$ref`): the validator of a media-type schema with
 * `$ref`s calls the validators of the schemas it reaches, each compiled once in the same Ajv instance. A kept instance
 * keeps them between lints, so a schema changed by an edit is compiled again with the unchanged schemas it reaches
 * reused, instead of the whole reach compiled in a new instance. Every schema in the instance is kept with the digest
 * of its closure (`SchemaClosures`); a lint first removes each loaded schema whose closure changed (with it every
 * validator that reaches it changed too, and is replaced when its media type is checked), and any compile error
 * drops the instance for a new one.
 */
import {
  createExampleAjv,
  type Ajv,
  type Dialect,
  type Loc,
  type Resolve,
  type SchemaClosures,
  schemaIdKey,
  type Validate,
} from './example-ajv.js';

type Obj = Record<string, unknown>;

/** A new instance once this many compiles were thrown away: Ajv's code scope keeps every function it ever compiled. */
const MAX_DISCARDED = 2000;

export class KeptRefValidators {
  private ajv: Ajv | undefined;
  private resolve: Resolve | undefined;
  private closures: SchemaClosures | undefined;
  /** Schemas loaded by `$ref` (Ajv's key): how to resolve them again and the closure digest they were compiled from. */
  private loaded = new Map<string, { $ref: string; base: string; id: string; digest: string | undefined }>();
  /** Media-type schemas added by id, with their closure digest. */
  private roots = new Map<string, string | undefined>();
  private visited = new Set<string>();
  /** Media-type schemas whose compile failed in this lint: left as Redocly's instance leaves them, removed at the next. */
  private failed = new Set<string>();
  /**
   * Media-type schemas Ajv could not compile, with the closure digest and the error: while the digest is the same, a
   * later lint reports the same error without compiling again (Ajv's error is a function of the schemas it read).
   */
  private failures = new Map<string, { digest: string; message: string }>();
  private discarded = 0;
  /** Media-type validators reused from an earlier lint, and compiled, in this one (each counted once per lint). */
  stats = { reused: 0, compiled: 0 };

  constructor(
    private readonly dialect: Dialect,
    private readonly additional: boolean,
  ) {}

  private instance(): Ajv {
    this.ajv ??= createExampleAjv(
      this.dialect,
      () => this.resolve!,
      (key, $ref, base, target) => {
        const id = `${encodeURI(target.location.source.absoluteRef)}#${key}`;
        this.loaded.set(key, { $ref, base, id, digest: this.closures!.digest(target.node, target.location) });
      },
    );
    return this.ajv;
  }

  private reset(): void {
    this.ajv = undefined;
    this.loaded.clear();
    this.roots.clear();
    this.failed.clear();
    this.failures.clear();
    this.discarded = 0;
  }

  /** Removes a schema under both names Ajv registered a loaded one by: its key and the `$id` it was loaded with. */
  private remove(key: string): void {
    const entry = this.loaded.get(key);
    this.ajv?.removeSchema(key);
    if (entry !== undefined) {
      this.ajv?.removeSchema(entry.id);
      this.loaded.delete(key);
    }
    this.discarded++;
  }

  /** Starts a lint: its resolver and closures; every loaded schema whose closure changed is removed. */
  begin(resolve: Resolve, closures: SchemaClosures): void {
    this.resolve = resolve;
    this.closures = closures;
    this.visited.clear();
    this.stats = { reused: 0, compiled: 0 };
    if (this.discarded > MAX_DISCARDED) this.reset();
    for (const id of this.failed) this.remove(id);
    this.failed.clear();
    for (const [key, entry] of [...this.loaded]) {
      const now = resolve({ $ref: entry.$ref }, entry.base);
      const digest = now.location ? closures.digest(now.node, now.location) : undefined;
      if (digest === undefined || digest !== entry.digest) this.remove(key);
    }
  }

  /** Ends a lint: the media-type schemas it did not check are removed. */
  end(): void {
    for (const id of this.failures.keys()) if (!this.visited.has(id)) this.failures.delete(id);
    for (const id of this.roots.keys()) {
      if (this.visited.has(id)) continue;
      this.remove(id);
      this.roots.delete(id);
    }
  }

  /** As Redocly's AjvValidator.getValidator for a schema with `$ref`s at `loc`, registered by `$id`. */
  validator(schema: Obj, loc: Loc): Validate | undefined {
    const $id = encodeURI(loc.absolutePointer);
    const digest = this.closures!.digest(schema, loc);
    if (!this.visited.has($id)) {
      this.visited.add($id);
      if (this.roots.has($id) && (digest === undefined || this.roots.get($id) !== digest)) {
        this.remove($id);
        this.roots.delete($id);
      }
      if (this.roots.has($id) || this.failures.get($id)?.digest === digest) this.stats.reused++;
      else this.stats.compiled++;
    }
    const failure = this.failures.get($id);
    if (failure !== undefined && failure.digest === digest) throw new Error(failure.message);
    const ajv = this.instance();
    try {
      if (!ajv.getSchema($id)) {
        ajv.setDefaultUnevaluatedProperties(this.additional);
        ajv.addSchema({ [schemaIdKey(this.dialect)]: $id, ...schema }, $id);
      }
      const validate = ajv.getSchema($id);
      this.roots.set($id, digest);
      return validate;
    } catch (error) {
      // reported; not kept: removed when the next lint begins (this one goes on as Redocly's instance would)
      this.roots.delete($id);
      this.failed.add($id);
      if (digest !== undefined) this.failures.set($id, { digest, message: (error as Error).message });
      throw error;
    }
  }
}
