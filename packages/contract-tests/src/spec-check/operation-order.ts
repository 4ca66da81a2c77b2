/**
 * The order of a stateful run (D271 contract checker's value pool): which operations' answers can carry each input key, and operations sorted by how
 * many steps of making things their path parameters need (creates first, then reads, updates and actions, deletes last).
 */
import type { OperationInfo, Resolver } from './document.js';
import { inputKey, singular, ValuePool } from './pool.js';
import { declaredPaths } from './property-coverage.js';

/** Operation order (D271 contract checker's value pool): by how many steps of making things it needs, creates first, reads, updates, deletes last. */
export function planOrder(operations: readonly OperationInfo[], r: Resolver): OperationInfo[] {
  const producers = staticProducers(operations, r);
  const depth = new Map<string, number>();
  const needs = (op: OperationInfo) => op.params.filter((p) => p.in === 'path').map((p) => inputKey(p.name));
  const depthOf = (op: OperationInfo, visiting: Set<string>): number => {
    const known = depth.get(op.operationId);
    if (known !== undefined) return known;
    if (visiting.has(op.operationId)) return 0;
    visiting.add(op.operationId);
    let d = 0;
    for (const key of needs(op)) {
      const from = (producers.get(key) ?? []).filter((p) => p !== op && !needs(p).includes(key));
      if (from.length > 0) d = Math.max(d, 1 + Math.min(...from.map((p) => depthOf(p, visiting))));
    }
    visiting.delete(op.operationId);
    depth.set(op.operationId, d);
    return d;
  };
  const phase = (op: OperationInfo) =>
    op.method === 'delete' ? 3 : op.method === 'get' || op.method === 'head' ? 1 : needs(op).length === 0 ? 0 : 2;
  const index = new Map(operations.map((op, i) => [op.operationId, i]));
  return [...operations].sort(
    (a, b) =>
      Number(phase(a) === 3) - Number(phase(b) === 3) ||
      depthOf(a, new Set()) - depthOf(b, new Set()) ||
      phase(a) - phase(b) ||
      index.get(a.operationId)! - index.get(b.operationId)!,
  );
}

/** Which operations' 2xx answers can carry each input key (from their response schemas). */
export function staticProducers(operations: readonly OperationInfo[], r: Resolver): Map<string, OperationInfo[]> {
  const out = new Map<string, OperationInfo[]>();
  const keys = ValuePool.resourceKeys(operations);
  const add = (key: string, op: OperationInfo) => {
    if (!keys.has(key)) return;
    const list = out.get(key) ?? [];
    if (!list.includes(op)) list.push(op);
    out.set(key, list);
  };
  for (const op of operations) {
    const last = op.path
      .split('/')
      .filter((s) => s !== '' && !s.startsWith('{'))
      .pop();
    const own = [...op.params.filter((p) => p.in === 'path').map((p) => p.name), ...(last ? [`${singular(last)}_id`] : [])];
    const item = operations.find((o) =>
      new RegExp(`^${op.path.replace(/\/$/, '').replace(/[.*+?^$()|[\]\\{}]/g, '\\$&')}/\\{[^}]+\\}/?$`).test(o.path),
    );
    if (item) own.push(/\{([^}]+)\}\/?$/.exec(item.path)![1]!);
    for (const [status, response] of op.responses) {
      if (!status.startsWith('2')) continue;
      for (const pointer of response.content.values()) {
        if (pointer === null) continue;
        for (const path of declaredPaths(r.at(pointer), r.deref)) {
          const segments = path.split('.').map((s) => s.replace(/\[\]$/, ''));
          const name = segments[segments.length - 1]!;
          if (name.toLowerCase() === 'id') {
            const parent = segments[segments.length - 2];
            if (parent !== undefined && !['data', 'results', 'items', 'result'].includes(parent))
              add(inputKey(`${singular(parent)}_id`), op);
            else for (const k of own) add(inputKey(k), op);
          } else add(inputKey(name), op);
        }
      }
      for (const link of response.links) for (const p of Object.keys(link.parameters)) add(inputKey(p.replace(/^\w+\./, '')), op);
    }
  }
  return out;
}
