/**
 * The type layer, incrementally (D441, each emitted unit cached by content): openapi-typescript's output for a
 * bundled document, assembled from one unit per path item, webhook and component (`components.<section>.<name>`),
 * each unit's TypeScript nodes reused while the unit's JSON, every `$ref` its transform resolved (by the digest of what
 * the ref pointed at), the discriminators openapi-typescript scanned and the helper types already in the footer are
 * unchanged. Adding a property to one schema re-transforms that schema only.
 *
 * The assembly is openapi-typescript 7.13's `transformSchema`, `transformPathsObject`, `transformWebhooksObject` and
 * `transformComponentsObject` for the type layer's options (TYPE_LAYER_OPTIONS: no root types, no `transform`
 * hook, no immutability, no path-parameter types, no enums), calling the same exported per-object transforms; the
 * footer (`operations` and helper aliases such as `WithRequired`) is replayed in the order the units wrote it. The
 * output is byte for byte `typeScriptOf`'s (type-layer-cache.test.ts compares them on every real-world spec of the
 * repository, before and after edits); the version pin of openapi-typescript (`~7.13.0`) keeps that true.
 */
import ts from 'typescript';
import {
  addJSDocComment,
  astToString,
  createRef,
  getEntries,
  NEVER,
  oapiRef,
  scanDiscriminators,
  STRING,
  transformHeaderObject,
  transformParameterObject,
  transformPathItemObject,
  transformRequestBodyObject,
  transformResponseObject,
  transformSchemaObject,
  tsModifiers,
  tsPropertyIndex,
  tsRecord,
  type GlobalContext,
  type OpenAPI3,
  type TransformNodeOptions,
} from 'openapi-typescript';
import { TYPE_LAYER_OPTIONS, typeLayerContext } from '../util/type-layer.js';
import { digestJson, digestText } from './digest.js';

/** What transforming one unit produced, and what it read. */
interface UnitEntry {
  /** Digest of the unit's JSON (after openapi-typescript's discriminator scan patched it). */
  digest: string;
  /** The footer's declared names when the unit ran (the helpers' de-duplication depends on them). */
  footerBefore: string;
  /** Each `$ref` the transform resolved, with the digest of the value it resolved to. */
  reads: Map<string, string>;
  /**
   * A member unit (path item, webhook, component) keeps its printed text only, not its syntax tree (the trees of a
   * large spec are hundreds of MB the garbage collector would walk on every run); `$defs` keeps its node.
   */
  text: string | undefined;
  node: ts.Node | undefined;
  /** Nodes the unit pushed onto the footer, in order; `operations` marks where it created that interface. */
  footer: (ts.Node | 'operations')[];
  /** The printed members the unit appended to the `operations` interface. */
  operationMembers: string[];
}

const COMPONENT_TRANSFORMERS: readonly [string, (item: never, options: TransformNodeOptions) => ts.TypeNode][] = [
  ['schemas', transformSchemaObject as (item: never, options: TransformNodeOptions) => ts.TypeNode],
  ['responses', transformResponseObject as (item: never, options: TransformNodeOptions) => ts.TypeNode],
  ['parameters', transformParameterObject as (item: never, options: TransformNodeOptions) => ts.TypeNode],
  ['requestBodies', transformRequestBodyObject as (item: never, options: TransformNodeOptions) => ts.TypeNode],
  ['headers', transformHeaderObject as (item: never, options: TransformNodeOptions) => ts.TypeNode],
  ['pathItems', transformPathItemObject as (item: never, options: TransformNodeOptions) => ts.TypeNode],
];

const declaredName = (node: ts.Node): string | undefined =>
  ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node) ? node.name.text : undefined;

const findOperations = (footer: readonly ts.Node[]): ts.InterfaceDeclaration | undefined =>
  footer.find((n): n is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(n) && n.name.text === 'operations');

/** openapi-typescript's `operations` interface as `injectOperationObject` creates it. */
const operationsInterface = (): ts.InterfaceDeclaration =>
  ts.factory.createInterfaceDeclaration(tsModifiers({ export: true }), ts.factory.createIdentifier('operations'), undefined, undefined, []);

/** The printer astToString makes (openapi-typescript's options), for printing one member at a time. */
const printer = ts.createPrinter({ newLine: ts.NewLineKind.LineFeed, removeComments: false });
const scratchFile = ts.createSourceFile('openapi-ts.ts', '', ts.ScriptTarget.ESNext, false, ts.ScriptKind.TS);

/**
 * A member's text as the printer writes it `depth` levels deep: printed inside as many wrappers and cut out, so its
 * indentation and its comments' lines are exactly those of the whole file's print.
 */
function printMember(member: ts.TypeElement, depth: 1 | 2): string {
  let wrapped: ts.TypeElement = member;
  for (let level = depth; level > 1; level--) {
    wrapped = ts.factory.createPropertySignature(undefined, 'w', undefined, ts.factory.createTypeLiteralNode([wrapped]));
  }
  const text = printer.printNode(
    ts.EmitHint.Unspecified,
    ts.factory.createInterfaceDeclaration(undefined, 'W', undefined, undefined, [wrapped]),
    scratchFile,
  );
  const lines = text.split('\n');
  return lines.slice(depth, lines.length - depth).join('\n');
}

/** Stands for a member in the skeleton that is printed once: replaced by the member's own text afterwards. */
const PLACEHOLDER = /^ *__pg_member_(\d+)__;$/gm;

/** The sections whose entries are units (the rest of the document is one more text, for the discriminator check). */
const UNIT_SECTIONS = ['paths', 'webhooks'] as const;

/**
 * The JSON text of every unit (by the unit's object) and of everything else in the document: openapi-typescript's
 * discriminator scan walks all of it.
 */
function unitTexts(document: Readonly<Record<string, unknown>>): Map<unknown, string> {
  const texts = new Map<unknown, string>();
  const add = (value: unknown) => {
    if (value !== null && typeof value === 'object' && !texts.has(value)) texts.set(value, JSON.stringify(value));
  };
  const rest: Record<string, unknown> = { ...document };
  for (const section of UNIT_SECTIONS) {
    const map = document[section];
    if (map !== null && typeof map === 'object') {
      for (const item of Object.values(map)) add(item);
      rest[section] = Object.keys(map);
    }
  }
  const components = document.components;
  if (components !== null && typeof components === 'object') {
    const restComponents: Record<string, unknown> = { ...(components as Record<string, unknown>) };
    for (const [key] of COMPONENT_TRANSFORMERS) {
      const map = (components as Record<string, unknown>)[key];
      if (map !== null && typeof map === 'object') {
        for (const item of Object.values(map)) add(item);
        restComponents[key] = Object.keys(map);
      }
    }
    rest.components = restComponents;
  }
  // `$defs` is one unit; anything else (info, servers, security schemes, examples, x-*) is in the rest
  add(document.$defs);
  delete rest.$defs;
  texts.set(texts, JSON.stringify(rest));
  return texts;
}

export interface TypeLayerCacheStats {
  reused: number;
  transformed: number;
}

/** Holds the units of the last run; `typeScriptOf` returns what `util/type-layer.ts`'s `typeScriptOf` returns. */
export class TypeLayerCache {
  private units = new Map<string, UnitEntry>();
  private discriminatorsDigest = '';
  /** Units of the last run: reused and transformed again. */
  lastRun: TypeLayerCacheStats = { reused: 0, transformed: 0 };

  typeScriptOf(document: Readonly<Record<string, unknown>>): string {
    // Each unit's JSON, read once: its digest, and whether any part of the document has a `discriminator`.
    const texts = unitTexts(document);
    const plain = [...texts.values()].every((t) => !t.includes('"discriminator"'));
    // With a discriminator, openapi-typescript's scan patches the schemas it maps: it works on a clone, and units are
    // digested as patched. Without one the scan finds and patches nothing (its result is the empty scan's), and the
    // transforms only read: the document itself is transformed, no clone, no walk.
    const schema = (plain ? document : structuredClone(document)) as unknown as OpenAPI3;
    const base = typeLayerContext(schema, plain ? scanDiscriminators({} as OpenAPI3, TYPE_LAYER_OPTIONS) : undefined) as GlobalContext;
    const discriminators = digestJson(base.discriminators);
    // Every unit may read the discriminators: when they change, nothing is reused.
    if (discriminators !== this.discriminatorsDigest) this.units.clear();
    this.discriminatorsDigest = discriminators;

    const resolvedDigests = new Map<string, string>();
    const digestOfRef = (ref: string, value: unknown): string => {
      let d = resolvedDigests.get(ref);
      if (d === undefined) {
        d = digestJson(value);
        resolvedDigests.set(ref, d);
      }
      return d;
    };
    let reads: Map<string, string> | undefined;
    const ctx: GlobalContext = {
      ...base,
      injectFooter: [],
      resolve<T>(ref: string): T | undefined {
        const value = base.resolve<T>(ref);
        reads?.set(ref, digestOfRef(ref, value));
        return value;
      },
    };
    const footer = ctx.injectFooter as ts.Node[];
    const next = new Map<string, UnitEntry>();
    const stats: TypeLayerCacheStats = { reused: 0, transformed: 0 };

    /** The printed members of `operations`, in the order the units wrote them. */
    const operationTexts: string[] = [];
    const unit = (key: string, content: unknown, depth: 1 | 2 | undefined, make: () => ts.Node): UnitEntry => {
      const digest = plain ? digestText(texts.get(content) ?? JSON.stringify(content) ?? 'undefined') : digestJson(content);
      const footerBefore = footer.map(declaredName).join(',');
      const cached = this.units.get(key);
      if (
        cached !== undefined &&
        cached.digest === digest &&
        cached.footerBefore === footerBefore &&
        [...cached.reads].every(([ref, d]) => digestOfRef(ref, base.resolve(ref)) === d)
      ) {
        for (const n of cached.footer) {
          if (n === 'operations') footer.push(operationsInterface());
          else footer.push(n);
        }
        operationTexts.push(...cached.operationMembers);
        next.set(key, cached);
        stats.reused++;
        return cached;
      }
      const footerLength = footer.length;
      const operationsBefore = findOperations(footer);
      const membersBefore = operationsBefore?.members.length ?? 0;
      reads = new Map();
      const node = make();
      const entryReads = reads;
      reads = undefined;
      const operationsAfter = findOperations(footer);
      const members =
        operationsAfter === undefined ? [] : operationsAfter.members.slice(operationsBefore === undefined ? 0 : membersBefore);
      const entry: UnitEntry = {
        digest,
        footerBefore,
        reads: entryReads,
        text: depth === undefined ? undefined : printMember(node as ts.TypeElement, depth),
        node: depth === undefined ? node : undefined,
        footer: footer.slice(footerLength).map((n) => (n === operationsAfter && operationsBefore === undefined ? 'operations' : n)),
        operationMembers: members.map((m) => printMember(m, 1)),
      };
      operationTexts.push(...entry.operationMembers);
      next.set(key, entry);
      stats.transformed++;
      return entry;
    };

    const pieces: string[] = [];
    const placeholder = (text: string): ts.TypeElement => {
      pieces.push(text);
      return ts.factory.createPropertySignature(undefined, `__pg_member_${pieces.length - 1}__`, undefined, undefined);
    };

    const pathLike = (root: 'paths' | 'webhooks', section: Record<string, unknown>): ts.TypeLiteralNode => {
      const members: ts.TypeElement[] = [];
      for (const [name, item] of getEntries(section, ctx)) {
        // transformPathsObject skips what is not an object; transformWebhooksObject does not look
        if (root === 'paths' && (item === null || typeof item !== 'object')) continue;
        const member = unit(`${root}\0${name}`, item, 1, () => {
          if (root === 'paths' && '$ref' in (item as object)) {
            const property = ts.factory.createPropertySignature(
              tsModifiers({ readonly: ctx.immutable }),
              tsPropertyIndex(name),
              undefined,
              oapiRef((item as { $ref: string }).$ref),
            );
            addJSDocComment(item as never, property);
            return property;
          }
          return ts.factory.createPropertySignature(
            tsModifiers({ readonly: ctx.immutable }),
            tsPropertyIndex(name),
            undefined,
            transformPathItemObject(item as never, { path: createRef([root, name]), ctx }),
          );
        });
        members.push(placeholder(member.text!));
      }
      return ts.factory.createTypeLiteralNode(members);
    };

    const components = (section: Record<string, unknown>): ts.TypeLiteralNode => {
      const type: ts.TypeElement[] = [];
      for (const [key, transform] of COMPONENT_TRANSFORMERS) {
        const items: ts.TypeElement[] = [];
        const map = section[key] as Record<string, unknown> | undefined;
        if (map) {
          for (const [name, item] of getEntries(map, ctx)) {
            const member = unit(`components\0${key}\0${name}`, item, 2, () => {
              const path = createRef(['components', key, name]);
              const subType = transform(item as never, { path, schema: item as never, ctx });
              const property = ts.factory.createPropertySignature(
                tsModifiers({ readonly: ctx.immutable }),
                tsPropertyIndex(name),
                undefined,
                subType,
              );
              addJSDocComment(item as never, property);
              return property;
            });
            items.push(placeholder(member.text!));
          }
        }
        type.push(
          ts.factory.createPropertySignature(
            undefined,
            tsPropertyIndex(key),
            undefined,
            items.length ? ts.factory.createTypeLiteralNode(items) : NEVER,
          ),
        );
      }
      return ts.factory.createTypeLiteralNode(type);
    };

    const nodes: ts.Node[] = [];
    const document3 = schema as unknown as Record<string, unknown>;
    for (const root of ['paths', 'webhooks', 'components', '$defs'] as const) {
      const emptyObj = ts.factory.createTypeAliasDeclaration(tsModifiers({ export: true }), root, undefined, tsRecord(STRING, NEVER));
      const section = document3[root];
      if (section === null || section === undefined || typeof section !== 'object') {
        nodes.push(emptyObj);
        continue;
      }
      const subType: ts.Node =
        root === 'components'
          ? components(section as Record<string, unknown>)
          : root === '$defs'
            ? unit('$defs', section, undefined, () =>
                transformSchemaObject(section as never, { path: createRef(['$defs']), ctx, schema: section as never }),
              ).node!
            : pathLike(root, section as Record<string, unknown>);
      if (ts.isTypeNode(subType)) {
        const members = (subType as Partial<ts.TypeLiteralNode>).members;
        nodes.push(
          members?.length
            ? ts.factory.createInterfaceDeclaration(tsModifiers({ export: true }), root, undefined, undefined, members)
            : emptyObj,
        );
      } else if (ts.isTypeAliasDeclaration(subType)) {
        nodes.push(subType);
      } else {
        nodes.push(emptyObj);
      }
    }
    let hasOperations = false;
    for (let injected of footer) {
      if (ts.isInterfaceDeclaration(injected) && injected.name.text === 'operations') {
        // the skeleton's copy, with every unit's printed members in the order they were written
        injected = ts.factory.createInterfaceDeclaration(
          injected.modifiers,
          injected.name,
          undefined,
          undefined,
          operationTexts.map(placeholder),
        );
      }
      if (!hasOperations && declaredName(injected) === 'operations') hasOperations = true;
      nodes.push(injected);
    }
    if (!hasOperations) {
      nodes.push(ts.factory.createTypeAliasDeclaration(tsModifiers({ export: true }), 'operations', undefined, tsRecord(STRING, NEVER)));
    }
    this.units = next;
    this.lastRun = stats;
    return astToString(nodes).replace(PLACEHOLDER, (_, index: string) => pieces[Number(index)]!);
  }
}
