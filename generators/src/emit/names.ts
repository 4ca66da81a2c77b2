import type { OperationModel } from '../model/types.js';
import { pascalCase, propertyKey } from '../util/naming.js';

/** PascalCase type base names per operationId, deduplicated deterministically (operations are model-sorted). */
export function operationTypeNames(operations: readonly Pick<OperationModel, 'operationId'>[]): Map<string, string> {
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

/**
 * The local alias of each operation's type-layer entry (`type O12 = paths["/x"]["get"]`), by operationId. D159: a
 * short name, numbered in model order: an alias is spelled five to ten times per operation in the handlers and the
 * client (GitHub: 7,500 times each), where `OpSecurityAdvisoriesListGlobalAdvisories` cost a tenth of the file; the
 * alias line itself names the path and method, and the exported names (`XRequest`, `XResponse`, methods) are unchanged.
 */
export function operationAliases(operations: readonly Pick<OperationModel, 'operationId'>[]): Map<string, string> {
  return new Map(operations.map((op, i) => [op.operationId, `O${i + 1}`]));
}

/**
 * A declared body on the type layer: `Body<O1["responses"][200]>` (JSON) or `Body<O1["responses"][200], "text/plain">`,
 * for `O1["responses"][200]["content"]["application/json"]` (D159 short numbered operation type aliases). `Body` is declared by the file that uses it
 * (BODY_TYPE).
 */
export function bodyRef(alias: string, responseKey: string, mediaType: string): string {
  const media = mediaType === 'application/json' ? '' : `, ${JSON.stringify(mediaType)}`;
  return `Body<${alias}["responses"][${responseKey}]${media}>`;
}

/** The declaration `bodyRef` needs (emitted only where used: an unused local fails users' noUnusedLocals, D132). */
export const BODY_TYPE = 'type Body<R extends { content: Record<M, unknown> }, M extends string = "application/json"> = R["content"][M];';

/** `paths["/orders/{id}"]["get"]` */
export function operationTypeRef(op: Pick<OperationModel, 'path' | 'method'>): string {
  return `paths[${JSON.stringify(op.path)}][${JSON.stringify(op.method)}]`;
}

/**
 * Whether an operation view's generated types use its `OpX` alias (`OpX["parameters"]...`; the alias itself is `"OpX"`
 * in JSON, never followed by `[`): an alias nothing uses fails users' noUnusedLocals, so it is not emitted (D132 noUnusedLocals and noUnusedParameters everywhere).
 */
export function usesAlias(view: { alias: string; doc: string[] }): boolean {
  return new RegExp(`(?<![\\w$])${view.alias.replace(/\$/g, '\\$')}\\[`).test(JSON.stringify({ ...view, doc: [] }));
}

export { propertyKey };

/**
 * An operation's description as the client's and the handlers' JSDoc carry it: the first paragraph, then ` …` when
 * there is more (D157 generated methods carry summary and description). The full text is on the type layer's operation (openapi-typescript's JSDoc) and in the docs
 * site; copying it onto every method twice made a third of GitHub's client and handlers.
 */
export function briefDescription(description: string | undefined): string {
  if (description === undefined) return '';
  const text = description.trim();
  const end = text.search(/\n[ \t]*\n/);
  return end === -1 ? text : `${text.slice(0, end).trimEnd()} …`;
}
