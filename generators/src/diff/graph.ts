/**
 * The comparison as a graph (D104 one diff entry per change, at its definition): each pair of definitions compared (two schemas, two parameters, two responses...)
 * is one node, built once whatever number of places use it, holding the changes found at that pair itself and edges
 * to the pairs below it. Operations, webhooks, callbacks and events are roots. A change is one entry, keyed by kind
 * and pointer; its uses are the roots that reach it, found by walking from each root through the nodes below which
 * something changed. Output and memory grow with the number of changes and definitions, never with the number of
 * paths through shared or recursive schemas.
 */
import type { Change, ChangeUse, Classification, SpecDocument } from './types.js';
import { CLASSIFICATIONS } from './types.js';

/** Uses listed per change; all are counted. */
export const MAX_USES_LISTED = 10;

export interface Edge {
  to: GraphNode;
  /** Appended to the container label of the use (`response 200`, ` (application/json)`). */
  label?: string;
  /** Set on the edges out of a root: the direction of everything below. */
  direction?: ChangeUse['direction'];
}

export interface GraphNode {
  own: Entry[];
  edges: Edge[];
  parents: GraphNode[];
  dirty: boolean;
}

export interface Entry {
  classification: Classification;
  kind: string;
  document: SpecDocument;
  pointer: string;
  reason: string | undefined;
  values: string;
  before?: unknown;
  after?: unknown;
  list?: string;
  uses: ChangeUse[];
  useCount: number;
  lastRoot: number;
}

export interface Root {
  where: string;
  node: GraphNode;
  direction: ChangeUse['direction'];
  in: string;
}

export interface Emitted {
  kind: string;
  document: SpecDocument;
  pointer: string;
  classification: Classification;
  reason?: string;
  before?: unknown;
  after?: unknown;
  list?: string;
}

const severity = (c: Classification) => CLASSIFICATIONS.indexOf(c);

export class ChangeGraph {
  private readonly nodes = new Map<string, GraphNode>();
  private readonly queue: { node: GraphNode; build: (node: GraphNode) => void }[] = [];
  readonly entries = new Map<string, Entry>();
  readonly roots: Root[] = [];

  /** The node of `key`, built once (later, from the queue): cycles and shared definitions end here. */
  node(key: string, build: (node: GraphNode) => void): GraphNode {
    const known = this.nodes.get(key);
    if (known) return known;
    const node: GraphNode = { own: [], edges: [], parents: [], dirty: false };
    this.nodes.set(key, node);
    this.queue.push({ node, build });
    return node;
  }

  /** A node that only carries changes (an operation removed, a top-level annotation). */
  leaf(): GraphNode {
    return { own: [], edges: [], parents: [], dirty: false };
  }

  emit(node: GraphNode, change: Emitted): void {
    const key = `${change.document}|${change.kind}|${change.pointer}`;
    let entry = this.entries.get(key);
    if (!entry) {
      entry = {
        classification: change.classification,
        kind: change.kind,
        document: change.document,
        pointer: change.pointer,
        reason: change.reason,
        values: '',
        ...(change.before === undefined ? {} : { before: change.before }),
        ...(change.after === undefined ? {} : { after: change.after }),
        ...(change.list === undefined ? {} : { list: change.list }),
        uses: [],
        useCount: 0,
        lastRoot: -1,
      };
      this.entries.set(key, entry);
    } else if (severity(change.classification) < severity(entry.classification)) {
      entry.classification = change.classification;
      entry.reason = change.reason;
    }
    if (!node.own.includes(entry)) node.own.push(entry);
  }

  root(root: Root): void {
    this.roots.push(root);
  }

  /** Builds every queued node, then finds each change's uses. */
  finish(): Entry[] {
    for (let i = 0; i < this.queue.length; i++) this.queue[i]!.build(this.queue[i]!.node);
    this.queue.length = 0;
    const all = [...this.nodes.values(), ...this.roots.map((r) => r.node)];
    for (const node of all) for (const edge of node.edges) edge.to.parents.push(node);
    const work = all.filter((n) => n.own.length > 0);
    for (const n of work) n.dirty = true;
    while (work.length > 0) {
      const n = work.pop()!;
      for (const p of n.parents) {
        if (!p.dirty) {
          p.dirty = true;
          work.push(p);
        }
      }
    }
    this.roots.forEach((root, index) => this.walk(root, index));
    return [...this.entries.values()];
  }

  /** Breadth-first from one root through dirty nodes: every change met gets this root as a use (once). */
  private walk(root: Root, index: number): void {
    if (!root.node.dirty) return;
    const visited = new Set<GraphNode>([root.node]);
    const queue: { node: GraphNode; in: string; direction: ChangeUse['direction'] }[] = [
      { node: root.node, in: root.in, direction: root.direction },
    ];
    for (let i = 0; i < queue.length; i++) {
      const { node, in: container, direction } = queue[i]!;
      for (const entry of node.own) {
        if (entry.lastRoot === index) continue;
        entry.lastRoot = index;
        entry.useCount++;
        if (entry.uses.length < MAX_USES_LISTED) entry.uses.push({ where: root.where, in: container, direction });
      }
      for (const edge of node.edges) {
        if (!edge.to.dirty || visited.has(edge.to)) continue;
        visited.add(edge.to);
        queue.push({
          node: edge.to,
          in: edge.label === undefined ? container : `${container}${edge.label}`,
          direction: edge.direction ?? direction,
        });
      }
    }
  }
}

export function toChange(entry: Entry, message: string): Change {
  return {
    classification: entry.classification,
    kind: entry.kind,
    document: entry.document,
    pointer: entry.pointer,
    message,
    uses: entry.uses,
    useCount: entry.useCount,
    ...(entry.before === undefined ? {} : { before: entry.before }),
    ...(entry.after === undefined ? {} : { after: entry.after }),
    ...(entry.list === undefined ? {} : { list: entry.list }),
  };
}
