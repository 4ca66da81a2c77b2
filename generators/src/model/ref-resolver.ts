/** Internal `$ref`s of the bundled document followed, for the builders that read raw JSON (model/*.ts, the emitters). */
import { isObj, unescapePointerToken } from '../util/json.js';
import { SchemaNodeBuilder } from './schema/build.js';

type Obj = Record<string, unknown>;

/** Resolves internal JSON pointers (`#/components/...`) in the bundled document. */
export class RefResolver {
  /** D164: each $ref is resolved once (model building reads the same shared parameters and schemas again and again). */
  private readonly resolved = new Map<string, unknown>();

  private schemaNodes: SchemaNodeBuilder | undefined;

  constructor(private readonly root: Obj) {}

  /** The typed schema builder of this document (./schema/build.ts): component schemas built once per document. */
  get nodes(): SchemaNodeBuilder {
    this.schemaNodes ??= new SchemaNodeBuilder(this.root);
    return this.schemaNodes;
  }

  /** Like {@link deref}, with the pointer of the node reached (`pointer` itself when `node` is no `$ref`). */
  locate<T = unknown>(node: unknown, pointer: string): { node: T; pointer: string } {
    let current = node;
    let at = pointer;
    for (let depth = 0; isObj(current) && typeof current.$ref === 'string'; depth++) {
      if (depth > 50) throw new Error(`$ref cycle at ${String(current.$ref)}`);
      at = current.$ref;
      current = this.get(current.$ref);
    }
    return { node: current as T, pointer: at };
  }

  get(ref: string): unknown {
    const cached = this.resolved.get(ref);
    if (cached !== undefined) return cached;
    if (!ref.startsWith('#')) throw new Error(`Only internal $refs are expected after bundling, got ${ref}`);
    let node: unknown = this.root;
    for (const raw of ref
      .slice(1)
      .split('/')
      .filter((s) => s.length > 0)) {
      const key = unescapePointerToken(decodeURIComponent(raw));
      if (!isObj(node) && !Array.isArray(node)) throw new Error(`Unresolvable $ref ${ref}`);
      node = (node as Obj)[key];
    }
    if (node === undefined) throw new Error(`Unresolvable $ref ${ref}`);
    this.resolved.set(ref, node);
    return node;
  }

  /** Follows `$ref` chains until a non-ref node. */
  deref<T = unknown>(node: unknown): T {
    let current = node;
    for (let depth = 0; isObj(current) && typeof current.$ref === 'string'; depth++) {
      if (depth > 50) throw new Error(`$ref cycle at ${String(current.$ref)}`);
      current = this.get(current.$ref);
    }
    return current as T;
  }

  /** Object properties of a schema, merging allOf members (shallow), following refs. */
  objectShape(schema: unknown, depth = 0): { properties: Record<string, unknown>; required: Set<string> } {
    const s = this.deref<unknown>(schema);
    const out = { properties: {} as Record<string, unknown>, required: new Set<string>() };
    if (!isObj(s) || depth > 20) return out;
    if (Array.isArray(s.allOf)) {
      for (const part of s.allOf) {
        const inner = this.objectShape(part, depth + 1);
        Object.assign(out.properties, inner.properties);
        for (const r of inner.required) out.required.add(r);
      }
    }
    if (isObj(s.properties)) Object.assign(out.properties, s.properties);
    if (Array.isArray(s.required)) for (const r of s.required) if (typeof r === 'string') out.required.add(r);
    return out;
  }
}
