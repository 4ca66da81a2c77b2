/**
 * Two schema views compared in the direction the data flows (D54 changes judged in the direction data flows; D103 versions compared by meaning after normalisation): a request schema breaks when it accepts
 * less, a response (webhook, callback, event) schema when it may carry something the reader did not expect or no
 * longer carries what the reader relied on. Each change is emitted at the pointer of the constraint that changed;
 * properties, items, additional properties and alternatives are pairs of their own (graph.ts).
 */
import { deepEqual, isObj, join, type Located, type SpecDoc } from './document.js';
import type { ChangeGraph, GraphNode } from './graph.js';
import {
  LOWER_BOUNDS,
  UPPER_BOUNDS,
  constraintOnly,
  primaryComponent,
  signature,
  tagOf,
  viewOf,
  type Bound,
  type SchemaView,
} from './schema-view.js';
import type { Classification } from './types.js';

export type Direction = 'request' | 'response';

export interface Sides {
  graph: ChangeGraph;
  a: SpecDoc;
  b: SpecDoc;
}

type Side = 'a' | 'b';

export class Emitter {
  constructor(
    readonly sides: Sides,
    readonly node: GraphNode,
    /** Moves a pointer to where the change is defined (see `relocator`). */
    private readonly relocate: (side: Side, pointer: string) => string = (_, p) => p,
  ) {}

  emit(
    side: Side,
    kind: string,
    pointer: string,
    classification: Classification,
    reason?: string,
    before?: unknown,
    after?: unknown,
    /** The pointer of the list a value was added to or removed from (see `Change.list`). */
    list?: string,
  ): void {
    this.sides.graph.emit(this.node, {
      kind,
      pointer: this.relocate(side, pointer),
      classification,
      document: this.sides[side].document,
      ...(reason === undefined ? {} : { reason }),
      ...(before === undefined ? {} : { before }),
      ...(after === undefined ? {} : { after }),
      ...(list === undefined ? {} : { list: this.relocate(side, list) }),
    });
  }

  edge(to: GraphNode, label?: string): void {
    this.node.edges.push(label === undefined ? { to } : { to, label });
  }
}

const keyOf = (srcs: readonly Located[]) => srcs.map((s) => s.ptr).join('+');

/** Where each side refers to the schema: a property entry, `items`, a media type's `schema` (its `$ref` or inline node). */
export interface Site {
  a: string;
  b: string;
}

/**
 * The node comparing two schemas (one or more nodes each, merged) in one direction. When the two sides are different
 * definitions (a `$ref` now points elsewhere, a schema was inlined or wrapped in `allOf`), what differs between them
 * is a change of the place that refers to them (`site`), not of the definitions, which may both be unchanged: the
 * node is then one per site, and changes are reported there. Definitions both sides share keep their own pointers.
 */
export function schemaPair(sides: Sides, dir: Direction, a: readonly Located[], b: readonly Located[], site?: Site): GraphNode {
  const ka = keyOf(a);
  const kb = keyOf(b);
  const moved = ka !== kb && site !== undefined;
  return sides.graph.node(`s|${dir}|${ka}|${kb}${moved ? `|${site.a}|${site.b}` : ''}`, (node) => {
    const va = viewOf(sides.a, a);
    const vb = viewOf(sides.b, b);
    compareSchemas(new Emitter(sides, node, moved ? relocator(va, vb, site) : undefined), dir, va, vb);
  });
}

function relocator(a: SchemaView, b: SchemaView, site: Site): (side: Side, pointer: string) => string {
  return (side, pointer) => {
    const own = side === 'a' ? a.sources : b.sources;
    const other = side === 'a' ? b.sources : a.sources;
    let owner = '';
    for (const source of own) if ((pointer === source || pointer.startsWith(`${source}/`)) && source.length > owner.length) owner = source;
    if (owner !== '' && other.has(owner)) return pointer;
    return side === 'a' ? site.a : site.b;
  };
}

const REQUEST_READS = 'requests that were valid may now be refused';

function compareSchemas(out: Emitter, dir: Direction, a: SchemaView, b: SchemaView): void {
  const req = dir === 'request';
  if (a.never !== b.never) {
    out.emit(
      b.never ? 'b' : 'a',
      b.never ? 'schema-refused' : 'schema-allowed',
      b.ptr,
      req === b.never ? 'breaking' : 'non-breaking',
      b.never ? 'nothing is valid any more' : undefined,
    );
  }
  const aAlt = a.alternatives !== undefined;
  const bAlt = b.alternatives !== undefined;
  compareNullable(out, dir, a, b);
  const constraints = (v: SchemaView) =>
    v.alternatives?.srcs.every((s) => constraintOnly(viewOf(v === a ? out.sides.a : out.sides.b, [s])));
  if (aAlt !== bAlt && !constraints(a) && !constraints(b)) {
    // X became anyOf [X, Y] (or the reverse): the alternatives are compared, X standing as the only one of its side
    compareAlternatives(out, dir, a, b);
    compareAnnotations(out, a, b);
    return;
  }
  compareTypes(out, dir, a, b);
  compareProperties(out, dir, a, b);
  compareAdditional(out, dir, a, b);
  compareItems(out, dir, a, b);
  compareEnum(out, dir, a, b);
  compareFormat(out, dir, a, b);
  comparePatterns(out, dir, a, b);
  compareBounds(out, dir, a, b);
  compareFlags(out, dir, a, b);
  if (aAlt && bAlt) compareAlternatives(out, dir, a, b);
  else if (aAlt || bAlt) compareConstraintAlternatives(out, dir, a, b);
  compareOther(out, a, b);
  compareAnnotations(out, a, b);
}

const admits = (types: Set<string> | undefined, t: string) =>
  types === undefined || types.has(t) || (t === 'integer' && types.has('number'));
const ALL_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array'];

function compareNullable(out: Emitter, dir: Direction, a: SchemaView, b: SchemaView): void {
  if (a.nullable === b.nullable) return;
  const added = b.nullable;
  const ptr = (added ? b.nullablePtr : a.nullablePtr)!;
  const keyword = (added ? b.nullableKeyword : a.nullableKeyword)!;
  const kind =
    keyword === 'nullable'
      ? `nullable-${added ? 'added' : 'removed'}`
      : keyword === 'type'
        ? 'type-changed'
        : `null-alternative-${added ? 'added' : 'removed'}`;
  // a `type` change that is only about null is reported here, once
  const breaking = dir === 'response' ? added : !added;
  const reason = breaking
    ? dir === 'response'
      ? 'clients reading this field may now get null'
      : 'requests sending null are refused'
    : 'the field accepts everything it accepted before';
  out.emit(added ? 'b' : 'a', kind, ptr, breaking ? 'breaking' : 'non-breaking', reason, a.nullable, b.nullable);
}

function compareTypes(out: Emitter, dir: Direction, a: SchemaView, b: SchemaView): void {
  const before = a.types === undefined ? ALL_TYPES : [...a.types];
  const after = b.types === undefined ? ALL_TYPES : [...b.types];
  const lost = before.filter((t) => !admits(b.types, t) && !(t === 'number' && a.types === undefined && b.types?.has('integer') === false));
  const gained = after.filter((t) => !admits(a.types, t));
  if (lost.length === 0 && gained.length === 0) return;
  const side: Side = b.typePtr !== undefined ? 'b' : 'a';
  const ptr = b.typePtr ?? a.typePtr ?? b.ptr;
  const kind = a.typePtr === undefined ? 'type-added' : b.typePtr === undefined ? 'type-removed' : 'type-changed';
  const fmt = (t: Set<string> | undefined) => (t === undefined ? 'any' : [...t].sort().join('|'));
  const breaking = dir === 'request' ? lost.length > 0 : gained.length > 0;
  const reason = breaking
    ? dir === 'request'
      ? REQUEST_READS
      : 'clients reading this field meet a type they do not expect'
    : 'the field accepts everything it accepted before';
  out.emit(side, kind, ptr, breaking ? 'breaking' : 'non-breaking', reason, fmt(a.types), fmt(b.types));
}

function compareProperties(out: Emitter, dir: Direction, a: SchemaView, b: SchemaView): void {
  const req = dir === 'request';
  const hidden = (p: { readOnly: boolean; writeOnly: boolean }) => (req ? p.readOnly : p.writeOnly);
  for (const [name, pa] of a.properties) {
    const pb = b.properties.get(name);
    if (pb) {
      out.edge(schemaPair(out.sides, dir, pa.srcs, pb.srcs, { a: pa.ptr, b: pb.ptr }));
      continue;
    }
    if (hidden(pa))
      out.emit(
        'a',
        'property-removed',
        pa.ptr,
        'non-breaking',
        req ? 'read-only: clients never sent it' : 'write-only: clients never read it',
      );
    else if (!req) out.emit('a', 'property-removed', pa.ptr, 'breaking', 'clients reading this field get nothing');
    else if (b.closed !== undefined)
      out.emit(
        'a',
        'property-removed',
        pa.ptr,
        'breaking',
        'requests that send it are refused (the schema does not admit other properties)',
      );
    else out.emit('a', 'property-removed', pa.ptr, 'warning', 'requests that send it: the server no longer documents it and may ignore it');
  }
  for (const [name, pb] of b.properties) {
    if (a.properties.has(name)) continue;
    const requiredAt = b.required.get(name);
    if (requiredAt !== undefined && !a.required.has(name)) {
      const breaking = req && !pb.readOnly;
      out.emit(
        'b',
        'required-property-added',
        requiredAt,
        breaking ? 'breaking' : 'non-breaking',
        breaking ? 'clients must now send it' : undefined,
        undefined,
        name,
      );
    } else {
      out.emit('b', 'property-added', pb.ptr, 'non-breaking');
    }
  }
  for (const [name, at] of a.required) {
    if (b.required.has(name)) continue;
    if (a.properties.has(name) && !b.properties.has(name)) continue; // reported as the property's removal
    const p = b.properties.get(name) ?? a.properties.get(name);
    const breaking = !req && !(p && hidden(p));
    out.emit(
      'a',
      'required-property-removed',
      at,
      breaking ? 'breaking' : 'non-breaking',
      breaking ? 'clients may no longer get it' : 'requests may leave it out',
      name,
    );
  }
  for (const [name, at] of b.required) {
    if (a.required.has(name)) continue;
    if (!a.properties.has(name) && b.properties.has(name)) continue; // reported with the new property
    const p = b.properties.get(name) ?? a.properties.get(name);
    const breaking = req && !p?.readOnly;
    out.emit(
      'b',
      'required-property-added',
      at,
      breaking ? 'breaking' : 'non-breaking',
      breaking ? 'clients must now send it' : undefined,
      undefined,
      name,
    );
  }
}

function compareAdditional(out: Emitter, dir: Direction, a: SchemaView, b: SchemaView): void {
  const req = dir === 'request';
  const aClosed = a.closed !== undefined;
  const bClosed = b.closed !== undefined;
  if (aClosed !== bClosed) {
    const side: Side = bClosed ? 'b' : 'a';
    const ptr = (bClosed ? b.closed : a.closed)!;
    const kind = bClosed
      ? a.additionalPtr === undefined
        ? 'additionalProperties-added'
        : 'additionalProperties-changed'
      : b.additionalPtr === undefined
        ? 'additionalProperties-removed'
        : 'additionalProperties-changed';
    const breaking = req && bClosed;
    out.emit(
      side,
      kind,
      ptr,
      breaking ? 'breaking' : 'non-breaking',
      breaking ? 'requests with fields the schema does not name are now refused' : undefined,
      aClosed ? false : undefined,
      bClosed ? false : undefined,
    );
  }
  if (a.additional && b.additional)
    out.edge(schemaPair(out.sides, dir, a.additional.srcs, b.additional.srcs, { a: a.additional.ptr, b: b.additional.ptr }));
  else if (a.additional && !b.additional && !bClosed)
    out.emit(
      'a',
      'additionalProperties-removed',
      a.additional.ptr,
      req ? 'non-breaking' : 'warning',
      req ? undefined : 'map values are no longer described',
    );
  else if (!a.additional && b.additional && !aClosed)
    out.emit(
      'b',
      'additionalProperties-added',
      b.additional.ptr,
      req ? 'warning' : 'non-breaking',
      req ? 'map values sent before may not match the new schema' : undefined,
    );
}

function compareItems(out: Emitter, dir: Direction, a: SchemaView, b: SchemaView): void {
  if (a.items && b.items) out.edge(schemaPair(out.sides, dir, a.items.srcs, b.items.srcs, { a: a.items.ptr, b: b.items.ptr }));
  else if (a.items && !b.items)
    out.emit(
      'a',
      'items-removed',
      a.items.ptr,
      dir === 'request' ? 'non-breaking' : 'warning',
      dir === 'request' ? undefined : 'array items are no longer described',
    );
  else if (!a.items && b.items)
    out.emit(
      'b',
      'items-added',
      b.items.ptr,
      dir === 'request' ? 'warning' : 'non-breaking',
      dir === 'request' ? 'array items sent before may not match the new schema' : undefined,
    );
}

function compareEnum(out: Emitter, dir: Direction, a: SchemaView, b: SchemaView): void {
  const req = dir === 'request';
  const ea = a.enumeration;
  const eb = b.enumeration;
  if (!ea && !eb) return;
  if (ea && eb) {
    if (ea.isConst && eb.isConst) {
      if (!deepEqual(ea.values[0], eb.values[0]))
        out.emit(
          'b',
          'const-changed',
          eb.ptr,
          'breaking',
          req ? REQUEST_READS : 'clients reading this field get another value',
          ea.values[0],
          eb.values[0],
        );
      return;
    }
    ea.values.forEach((v, i) => {
      if (eb.values.some((w) => deepEqual(v, w))) return;
      out.emit(
        'a',
        'enum-value-removed',
        ea.isConst ? ea.ptr : (ea.ptrs?.[i] ?? join(ea.ptr, i)),
        req ? 'breaking' : 'non-breaking',
        req ? 'requests sending this value are refused' : undefined,
        v,
        undefined,
        ea.isConst ? undefined : ea.ptr,
      );
    });
    eb.values.forEach((v, i) => {
      if (ea.values.some((w) => deepEqual(v, w))) return;
      out.emit(
        'b',
        'enum-value-added',
        eb.isConst ? eb.ptr : (eb.ptrs?.[i] ?? join(eb.ptr, i)),
        req ? 'non-breaking' : 'warning',
        req ? undefined : 'clients that check values against the old list reject it',
        undefined,
        v,
        eb.isConst ? undefined : eb.ptr,
      );
    });
    return;
  }
  if (ea)
    out.emit(
      'a',
      `${ea.isConst ? 'const' : 'enum'}-removed`,
      ea.ptr,
      req ? 'non-breaking' : 'warning',
      req ? undefined : 'clients that check values against the old list may get others',
    );
  else if (eb)
    out.emit(
      'b',
      `${eb.isConst ? 'const' : 'enum'}-added`,
      eb.ptr,
      req ? 'breaking' : 'non-breaking',
      req ? 'requests sending other values are refused' : undefined,
    );
}

/** Formats whose values are all values of another (`int32` ⊂ `int64`). */
const WIDER_FORMAT: Record<string, string[]> = {
  int32: ['int64'],
  float: ['double'],
  email: ['idn-email'],
  hostname: ['idn-hostname'],
  uri: ['iri', 'uri-reference', 'iri-reference'],
  'uri-reference': ['iri-reference'],
  iri: ['iri-reference'],
};
const widens = (from: string, to: string) => from === to || (WIDER_FORMAT[from] ?? []).includes(to);

function compareFormat(out: Emitter, dir: Direction, a: SchemaView, b: SchemaView): void {
  const fa = a.format?.value;
  const fb = b.format?.value;
  if (fa === fb) return;
  const req = dir === 'request';
  if (fa === undefined) {
    // `int64` and `double` name the width of numbers clients already send; other formats constrain strings
    const width = fb === 'int64' || fb === 'double';
    out.emit(
      'b',
      'format-added',
      b.format!.ptr,
      req && !width ? 'breaking' : 'non-breaking',
      req && !width ? REQUEST_READS : undefined,
      undefined,
      fb,
    );
  } else if (fb === undefined) {
    out.emit(
      'a',
      'format-removed',
      a.format!.ptr,
      req ? 'non-breaking' : 'warning',
      req ? undefined : 'clients parsing the old format may get other strings',
      fa,
    );
  } else {
    // wider for the writer of requests is fine; narrower for the reader of responses is fine; anything else breaks
    const ok = req ? widens(fa, fb) : widens(fb, fa);
    out.emit(
      'b',
      'format-changed',
      b.format!.ptr,
      ok ? 'non-breaking' : 'breaking',
      ok ? undefined : req ? REQUEST_READS : 'clients parsing the old format fail on the new one',
      fa,
      fb,
    );
  }
}

function comparePatterns(out: Emitter, dir: Direction, a: SchemaView, b: SchemaView): void {
  const added = [...b.patterns].filter(([p]) => !a.patterns.has(p));
  const removed = [...a.patterns].filter(([p]) => !b.patterns.has(p));
  if (added.length === 0 && removed.length === 0) return;
  const req = dir === 'request';
  // whether one regular expression admits more than another is undecidable in general: any change counts (D54 changes judged in the direction data flows)
  if (added.length > 0 && removed.length > 0) {
    out.emit(
      'b',
      'pattern-changed',
      added[0]![1],
      'breaking',
      req ? REQUEST_READS : 'readers may now get values the old pattern excluded',
      removed[0]![0],
      added[0]![0],
    );
  } else if (added.length > 0) {
    out.emit(
      'b',
      'pattern-added',
      added[0]![1],
      req ? 'breaking' : 'non-breaking',
      req ? REQUEST_READS : undefined,
      undefined,
      added[0]![0],
    );
  } else {
    out.emit(
      'a',
      'pattern-removed',
      removed[0]![1],
      req ? 'non-breaking' : 'breaking',
      req ? undefined : 'readers may now get values the old pattern excluded',
      removed[0]![0],
    );
  }
}

function compareBounds(out: Emitter, dir: Direction, a: SchemaView, b: SchemaView): void {
  const req = dir === 'request';
  for (const [names, upper] of [
    [UPPER_BOUNDS, true],
    [LOWER_BOUNDS, false],
  ] as const) {
    for (const name of names) {
      const ba = a.bounds.get(name);
      const bb = b.bounds.get(name);
      if (!ba && !bb) continue;
      if (ba && bb && ba.value === bb.value && ba.exclusive === bb.exclusive) continue;
      const tighter = bb !== undefined && (ba === undefined || stricter(bb, ba, upper));
      const side: Side = bb ? 'b' : 'a';
      const bound = (bb ?? ba)!;
      const kind = `${bound.keyword}-${ba && bb ? 'changed' : bb ? 'added' : 'removed'}`;
      const classification: Classification = req ? (tighter ? 'breaking' : 'non-breaking') : tighter ? 'non-breaking' : 'warning';
      const reason = req ? (tighter ? REQUEST_READS : undefined) : tighter ? undefined : 'readers may get values beyond the old limit';
      out.emit(side, kind, bound.ptr, classification, reason, ba?.value, bb?.value);
    }
  }
  const ma = a.multipleOf;
  const mb = b.multipleOf;
  if (ma?.value !== mb?.value) {
    // every multiple of the old step is a multiple of the new one when the new one divides it
    const wider = mb === undefined || (ma !== undefined && ma.value % mb.value === 0);
    const classification: Classification = req ? (wider ? 'non-breaking' : 'breaking') : wider ? 'warning' : 'non-breaking';
    out.emit(
      mb ? 'b' : 'a',
      `multipleOf-${ma && mb ? 'changed' : mb ? 'added' : 'removed'}`,
      (mb ?? ma)!.ptr,
      classification,
      undefined,
      ma?.value,
      mb?.value,
    );
  }
  if ((a.uniqueItems === undefined) !== (b.uniqueItems === undefined)) {
    const added = b.uniqueItems !== undefined;
    const classification: Classification = req ? (added ? 'breaking' : 'non-breaking') : added ? 'non-breaking' : 'warning';
    out.emit(added ? 'b' : 'a', `uniqueItems-${added ? 'added' : 'removed'}`, (b.uniqueItems ?? a.uniqueItems)!, classification);
  }
}

const stricter = (x: Bound, y: Bound, upper: boolean) =>
  (upper ? x.value < y.value : x.value > y.value) || (x.value === y.value && x.exclusive && !y.exclusive);

function compareFlags(out: Emitter, dir: Direction, a: SchemaView, b: SchemaView): void {
  const req = dir === 'request';
  if (a.readOnly !== b.readOnly) {
    const added = b.readOnly;
    out.emit(
      added ? 'b' : 'a',
      `readOnly-${added ? 'added' : 'removed'}`,
      (added ? b.readOnlyPtr : a.readOnlyPtr)!,
      req && added ? 'warning' : 'non-breaking',
      req && added ? 'the server now ignores what requests send here' : undefined,
    );
  }
  if (a.writeOnly !== b.writeOnly) {
    const added = b.writeOnly;
    out.emit(
      added ? 'b' : 'a',
      `writeOnly-${added ? 'added' : 'removed'}`,
      (added ? b.writeOnlyPtr : a.writeOnlyPtr)!,
      !req && added ? 'breaking' : 'non-breaking',
      !req && added ? 'responses no longer carry it' : undefined,
    );
  }
  const da = a.defaultValue;
  const db = b.defaultValue;
  if (da && db && deepEqual(da.value, db.value)) return;
  if (!da && !db) return;
  if (!req) {
    out.emit(
      db ? 'b' : 'a',
      `default-${da && db ? 'changed' : db ? 'added' : 'removed'}`,
      (db ?? da)!.ptr,
      'annotation',
      undefined,
      da?.value,
      db?.value,
    );
    return;
  }
  const classification: Classification = da && db ? 'warning' : db ? 'non-breaking' : 'warning';
  out.emit(
    db ? 'b' : 'a',
    `default-${da && db ? 'changed' : db ? 'added' : 'removed'}`,
    (db ?? da)!.ptr,
    classification,
    classification === 'warning' ? 'requests that leave it out get another behaviour' : undefined,
    da?.value,
    db?.value,
  );
}

/** Alternatives matched by definition, by the component they are made of, by tag, by shape, then by type. */
function compareAlternatives(out: Emitter, dir: Direction, a: SchemaView, b: SchemaView): void {
  const req = dir === 'request';
  // the side without alternatives stands as one: the whole schema (its nullability stays with the outer schema)
  const selfA = a.alternatives === undefined;
  const selfB = b.alternatives === undefined;
  const itemsA: Located[] = selfA ? [{ node: out.sides.a.at(a.ptr), ptr: a.ptr }] : a.alternatives!.srcs;
  const itemsB: Located[] = selfB ? [{ node: out.sides.b.at(b.ptr), ptr: b.ptr }] : b.alternatives!.srcs;
  const withNull = (items: Located, outer: SchemaView, self: boolean): Located[] =>
    self || !outer.nullable ? [items] : [items, { node: { nullable: true }, ptr: outer.ptr }];
  const viewsA = itemsA.map((x) => viewOf(out.sides.a, [x]));
  const viewsB = itemsB.map((y) => viewOf(out.sides.b, [y]));
  const matchedA = new Set<number>();
  const matchedB = new Set<number>();
  const pair = (i: number, j: number) => {
    matchedA.add(i);
    matchedB.add(j);
    const x = itemsA[i]!;
    const y = itemsB[j]!;
    out.edge(schemaPair(out.sides, dir, withNull(x, a, selfA), withNull(y, b, selfB), { a: x.ptr, b: y.ptr }));
  };
  const types = (v: SchemaView) => (v.types === undefined ? '*' : [...v.types].sort().join(','));
  const tiers: ((i: number, j: number) => boolean)[] = [
    (i, j) => primaryComponent(viewsA[i]!) !== undefined && primaryComponent(viewsA[i]!) === primaryComponent(viewsB[j]!),
    // the same position of two inline alternatives is the same alternative only when neither is made of a component
    (i, j) => itemsA[i]!.ptr === itemsB[j]!.ptr && primaryComponent(viewsA[i]!) === undefined && primaryComponent(viewsB[j]!) === undefined,
    (i, j) => {
      const tag = tagOf(out.sides.a, viewsA[i]!);
      return tag !== '' && tag === tagOf(out.sides.b, viewsB[j]!);
    },
    (i, j) => signature(viewsA[i]!) === signature(viewsB[j]!),
    (i, j) => types(viewsA[i]!) === types(viewsB[j]!),
  ];
  for (const same of tiers) {
    itemsA.forEach((_, i) => {
      if (matchedA.has(i)) return;
      const j = itemsB.findIndex((__, k) => !matchedB.has(k) && same(i, k));
      if (j >= 0) pair(i, j);
    });
  }
  const keyword = (b.alternatives ?? a.alternatives)!.keyword;
  itemsA.forEach((x, i) => {
    if (matchedA.has(i)) return;
    // a request shape merged into another alternative of the same type is still accepted if that one accepts it
    const j = req ? viewsB.findIndex((v) => types(v) === types(viewsA[i]!)) : -1;
    if (j >= 0) {
      out.edge(schemaPair(out.sides, dir, withNull(x, a, selfA), withNull(itemsB[j]!, b, selfB), { a: x.ptr, b: itemsB[j]!.ptr }));
      return;
    }
    out.emit(
      'a',
      `${a.alternatives?.keyword ?? keyword}-item-removed`,
      selfA ? x.ptr : join(a.alternatives!.ptr, i),
      req ? 'breaking' : 'non-breaking',
      req ? 'requests of this shape are refused' : undefined,
    );
  });
  itemsB.forEach((y, j) => {
    if (matchedB.has(j)) return;
    out.emit(
      'b',
      `${b.alternatives?.keyword ?? keyword}-item-added`,
      selfB ? y.ptr : join(b.alternatives!.ptr, j),
      req ? 'non-breaking' : 'warning',
      req ? undefined : 'clients may get a shape they do not know',
    );
  });
}

/**
 * `oneOf`/`anyOf` of constraints only (`[{required: [id]}, {required: [owner, repo]}]`) added or removed beside the
 * schema's own keywords: added, it refuses nothing the old schema accepted when one of its arms asks only for
 * properties the old schema already required.
 */
function compareConstraintAlternatives(out: Emitter, dir: Direction, a: SchemaView, b: SchemaView): void {
  const req = dir === 'request';
  if (b.alternatives) {
    const implied = b.alternatives.srcs.some((s) => [...viewOf(out.sides.b, [s]).required.keys()].every((name) => a.required.has(name)));
    const classification: Classification = implied ? 'non-breaking' : req ? 'breaking' : 'non-breaking';
    out.emit(
      'b',
      `${b.alternatives.keyword}-added`,
      b.alternatives.ptr,
      classification,
      implied ? 'every value valid before meets one of its arms' : req ? REQUEST_READS : undefined,
    );
  } else if (a.alternatives) {
    const implied = a.alternatives.srcs.some((s) => [...viewOf(out.sides.a, [s]).required.keys()].every((name) => b.required.has(name)));
    out.emit(
      'a',
      `${a.alternatives.keyword}-removed`,
      a.alternatives.ptr,
      req || implied ? 'non-breaking' : 'warning',
      req || implied ? undefined : 'responses may lack properties one of its arms required',
    );
  }
}

function compareOther(out: Emitter, a: SchemaView, b: SchemaView): void {
  for (const key of new Set([...a.other.keys(), ...b.other.keys()])) {
    const x = a.other.get(key);
    const y = b.other.get(key);
    if (x && y && deepEqual(x.value, y.value)) continue;
    out.emit(
      y ? 'b' : 'a',
      `${key}-${x && y ? 'changed' : y ? 'added' : 'removed'}`,
      (y ?? x)!.ptr,
      'unclassified',
      `\`${key}\` is not compared by meaning: review it`,
    );
  }
}

export function compareAnnotations(
  out: Emitter,
  a: { annotations: Map<string, { value: unknown; ptr: string }> },
  b: { annotations: Map<string, { value: unknown; ptr: string }> },
): void {
  for (const key of new Set([...a.annotations.keys(), ...b.annotations.keys()])) {
    const x = a.annotations.get(key);
    const y = b.annotations.get(key);
    if (x && y && deepEqual(x.value, y.value)) continue;
    if (key === 'discriminator' && x && y && isObj(x.value) && isObj(y.value) && x.value.propertyName !== y.value.propertyName) {
      out.emit('b', 'discriminator-changed', y.ptr, 'unclassified', 'the property that tells the alternatives apart changed: review it');
      continue;
    }
    if (key === 'examples' && x && y && Array.isArray(x.value) && Array.isArray(y.value)) {
      const xs = x.value;
      const ys = y.value;
      for (let i = 0; i < Math.max(xs.length, ys.length); i++) {
        if (i < xs.length && i < ys.length && deepEqual(xs[i], ys[i])) continue;
        const verb = i >= xs.length ? 'added' : i >= ys.length ? 'removed' : 'changed';
        out.emit(
          verb === 'removed' ? 'a' : 'b',
          `examples-item-${verb}`,
          join(verb === 'removed' ? x.ptr : y.ptr, i),
          'annotation',
          undefined,
          xs[i],
          ys[i],
        );
      }
      continue;
    }
    const verb = x && y ? 'changed' : y ? 'added' : 'removed';
    out.emit(
      y ? 'b' : 'a',
      `${key}-${verb}`,
      (y ?? x)!.ptr,
      'annotation',
      key === 'deprecated' && y?.value === true ? 'a deprecation notice; it still works' : undefined,
      x?.value,
      y?.value,
    );
  }
}
