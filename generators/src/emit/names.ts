import type { OperationModel } from '../model/types.js';
import { pascalCase, propertyKey } from '../util/naming.js';

/** PascalCase type base names per operationId, deduplicated deterministically (operations are model-sorted). */
export function operationTypeNames(operations: readonly OperationModel[]): Map<string, string> {
  const used = new Set<string>();
  const out = new Map<string, string>();
  for (const op of operations) {
    const base = pascalCase(op.operationId) || 'Operation';
    let name = base;
    for (let n = 2; used.has(name); n++) name = `${base}${n}`;
    used.add(name);
    out.set(op.operationId, name);
  }
  return out;
}

/** `paths["/orders/{id}"]["get"]` */
export function operationTypeRef(op: Pick<OperationModel, 'path' | 'method'>): string {
  return `paths[${JSON.stringify(op.path)}][${JSON.stringify(op.method)}]`;
}

/**
 * Whether an operation view's generated types use its `OpX` alias (`OpX["parameters"]...`; the alias itself is `"OpX"`
 * in JSON, never followed by `[`): an alias nothing uses fails users' noUnusedLocals, so it is not emitted (D132).
 */
export function usesAlias(view: { alias: string; doc: string[] }): boolean {
  return JSON.stringify({ ...view, doc: [] }).includes(`${view.alias}[`);
}

export { propertyKey };

/**
 * An operation's description as the client's and the handlers' JSDoc carry it: the first paragraph, then ` …` when
 * there is more (D157). The full text is on the type layer's operation (openapi-typescript's JSDoc) and in the docs
 * site; copying it onto every method twice made a third of GitHub's client and handlers.
 */
export function briefDescription(description: string | undefined): string {
  if (description === undefined) return '';
  const text = description.trim();
  const end = text.search(/\n[ \t]*\n/);
  return end === -1 ? text : `${text.slice(0, end).trimEnd()} …`;
}
