/**
 * One side of a comparison: a document, JSON pointers into it, and `$ref`s followed to what they point to. A node is
 * known by the pointer where it is defined: a `$ref`'s target, or, in a document whose refs were already replaced by
 * shared objects (a parsed AsyncAPI document), the first pointer the object was met at, so shared and recursive
 * schemas are compared once (D104 one diff entry per change, at its definition).
 */
import type { SpecDocument } from './types.js';
import { isObj, escapePointerToken, unescapePointerToken } from '../util/json.js';
export { isObj } from '../util/json.js';

export type Obj = Record<string, unknown>;

export const escape = escapePointerToken;

export function fromPointer(pointer: string): string[] {
  return pointer
    .replace(/^#/, '')
    .split('/')
    .slice(1)
    .map((s) => unescapePointerToken(s));
}

export const join = (pointer: string, ...segments: (string | number)[]) => pointer + segments.map((s) => `/${escape(String(s))}`).join('');

/** A node and the pointer it is defined at. */
export interface Located {
  node: unknown;
  ptr: string;
}

const MAX_REF_HOPS = 32;

export class SpecDoc {
  private readonly seen = new WeakMap<object, string>();

  constructor(
    readonly root: unknown,
    readonly document: SpecDocument,
  ) {}

  at(pointer: string): unknown {
    let node: unknown = this.root;
    for (const segment of fromPointer(pointer)) {
      if (Array.isArray(node)) node = node[Number(segment)];
      else if (isObj(node)) node = Object.hasOwn(node, segment) ? node[segment] : undefined;
      else return undefined;
    }
    return node;
  }

  has(pointer: string): boolean {
    return this.at(pointer) !== undefined;
  }

  /** Follows a chain of local `$ref`s (`{$ref}` alone, or with sibling keywords: see `hasSiblings`). */
  resolve(node: unknown, ptr: string): Located {
    let current: Located = { node, ptr };
    for (
      let hops = 0;
      hops < MAX_REF_HOPS && isObj(current.node) && typeof current.node.$ref === 'string' && !hasSiblings(current.node);
      hops++
    ) {
      const ref = current.node.$ref as string;
      if (!ref.startsWith('#')) break;
      const target = this.at(ref.slice(1));
      if (target === undefined) break;
      current = { node: target, ptr: decodeURIComponentSafe(ref.slice(1)) };
    }
    return this.canonical(current);
  }

  /** The target of a `$ref` that has sibling keywords (3.1), or undefined. */
  refTarget(node: Obj): Located | undefined {
    const ref = node.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#')) return undefined;
    const target = this.at(ref.slice(1));
    return target === undefined ? undefined : this.resolve(target, decodeURIComponentSafe(ref.slice(1)));
  }

  /** The first pointer an object was met at: shared objects of a dereferenced document are one definition. */
  private canonical(located: Located): Located {
    const { node } = located;
    if (node === null || typeof node !== 'object') return located;
    const first = this.seen.get(node);
    if (first !== undefined) return { node, ptr: first };
    this.seen.set(node, located.ptr);
    return located;
  }

  /** Resolves `parent[key]`, a child met through its parent. */
  child(parent: Located, ...segments: (string | number)[]): Located | undefined {
    let node = parent.node;
    for (const s of segments) {
      if (Array.isArray(node)) node = node[Number(s)];
      else if (isObj(node)) node = Object.hasOwn(node, String(s)) ? node[String(s)] : undefined;
      else node = undefined;
    }
    return node === undefined ? undefined : this.resolve(node, join(parent.ptr, ...segments));
  }
}

const hasSiblings = (node: Obj) => Object.keys(node).some((k) => k !== '$ref' && k !== 'description' && k !== 'summary');

function decodeURIComponentSafe(pointer: string): string {
  try {
    return decodeURIComponent(pointer);
  } catch {
    return pointer;
  }
}

/** Equal values are equal: key order does not matter, `1` and `1.0` are one number. */
export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== typeof b || a === null || b === null || typeof a !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => deepEqual(v, bb[i]));
  }
  const ka = Object.keys(a as Obj);
  const kb = Object.keys(b as Obj);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b as Obj, k) && deepEqual((a as Obj)[k], (b as Obj)[k]));
}
