/**
 * Named credential sets and which one serves which operation (D274 contract checker credential sets). A set holds a credential per security scheme (as
 * the generated client takes them). Rules pick a set per operation id, tag, path pattern or security scheme, first
 * match wins; without a rule, the first set that covers one of the operation's security alternatives. A positive
 * request answered 401 or 403 is tried with the other sets that cover it, and the one that worked is kept for that
 * operation (learnt from a documented 4xx). The same selectors filter operations (`--include`, `--exclude`).
 */
import { chooseAlternative } from '@paygate/client/runtime/security.js';
import type { OperationInfo } from './document.js';

export interface CredentialSet {
  name: string;
  /** Credential per security scheme name. */
  auth: Readonly<Record<string, unknown>>;
}

export type SelectorKind = 'op' | 'tag' | 'path' | 'scheme' | 'any';
export interface Selector {
  kind: SelectorKind;
  value: string;
}

export interface CredentialRule {
  set: string;
  selector: Selector;
}

/** `op:createOrder`, `tag:Orders`, `path:/pg/*`, `scheme:ClientId`; a bare word is an operation id or a tag. */
export function parseSelector(text: string): Selector {
  const m = /^(op|operation|tag|path|scheme):(.+)$/i.exec(text.trim());
  if (m === null) return { kind: 'any', value: text.trim() };
  const kind = m[1]!.toLowerCase();
  return { kind: kind === 'operation' ? 'op' : (kind as SelectorKind), value: m[2]!.trim() };
}

function globToRegExp(glob: string): RegExp {
  const source = glob
    .split('**')
    .map((part) =>
      part
        .split('*')
        .map((p) => p.replace(/[.+?^$()|[\]\\{}]/g, '\\$&'))
        .join('[^/]*'),
    )
    .join('.*');
  return new RegExp(`^${source}$`);
}

export function selects(selector: Selector, op: OperationInfo): boolean {
  const v = selector.value;
  switch (selector.kind) {
    case 'op':
      return op.operationId === v;
    case 'tag':
      return op.tags.some((t) => t.toLowerCase() === v.toLowerCase());
    case 'path': {
      const [method, pattern] = /^[A-Za-z]+ /.test(v) ? [v.split(' ')[0]!.toLowerCase(), v.slice(v.indexOf(' ') + 1)] : [undefined, v];
      return (method === undefined || method === op.method) && globToRegExp(pattern).test(op.path);
    }
    case 'scheme':
      return op.security.some((alt) => alt.includes(v));
    case 'any':
      return op.operationId === v || op.tags.some((t) => t.toLowerCase() === v.toLowerCase());
  }
}

/** Whether a set has what one of the operation's security alternatives needs (a public operation: any set). */
export function covers(set: CredentialSet, op: OperationInfo): boolean {
  if (op.security.length === 0 || op.security.some((alt) => alt.length === 0)) return true;
  return chooseAlternative(op.security, set.auth as Record<string, unknown>) !== undefined;
}

/** The sets to try for an operation, best first: the learnt one, the rule's, then every other set that covers it. */
export function setsFor(
  op: OperationInfo,
  sets: readonly CredentialSet[],
  rules: readonly CredentialRule[],
  learnt: ReadonlyMap<string, string>,
): CredentialSet[] {
  const order: CredentialSet[] = [];
  const push = (name: string | undefined) => {
    const set = sets.find((s) => s.name === name);
    if (set !== undefined && !order.includes(set)) order.push(set);
  };
  push(learnt.get(op.operationId));
  push(rules.find((r) => selects(r.selector, op))?.set);
  for (const set of sets) if (covers(set, op)) push(set.name);
  return order;
}

/** Whether an operation passes the `--include` / `--exclude` filters. */
export function included(op: OperationInfo, include: readonly Selector[], exclude: readonly Selector[]): boolean {
  if (include.length > 0 && !include.some((s) => selects(s, op))) return false;
  return !exclude.some((s) => selects(s, op));
}
