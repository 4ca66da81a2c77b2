/**
 * The events an API sends to its users' URLs ("Events from webhooks and callbacks", D210): every OpenAPI `webhooks` entry and every operation's `callbacks`
 * with a request body, and the AsyncAPI messages that describe the same events (or more of them).
 *
 * Each event gets a stable name, a type name, its payload schema and media type, its headers, where it is declared,
 * a category, prose and examples. When a payload property names the event ("The event discriminator, declared or detected", D211: `x-event-discriminator`, else a
 * required constant string with a distinct value per event, such as Paygate's `event_type` or OpenAI's `type`), the
 * event is a member of the discriminated union and is named by that value; otherwise it is named after its webhook or
 * callback and is known by that name alone (its route), never dropped.
 */
import { pascalCase } from '../util/naming.js';
import { compareStrings, sortedEntries } from '../util/sorted.js';
import type { AsyncMessageInput } from './build.js';
import { str } from './raw.js';
import type { RefResolver } from './ref-resolver.js';
import { withLazyNode } from './schema/build.js';
import type { SchemaNode } from './schema/types.js';
import type { EventOriginModel, JsonSchema, OperationModel, ParameterModel, WebhookEventModel } from './types.js';
import { HTTP_METHODS } from './types.js';
import { isObj, escapePointerToken, unescapePointerToken } from '../util/json.js';

type Obj = Record<string, unknown>;

/** The document-level extension that names the discriminator (D211 event discriminator declared or detected), e.g. `x-event-discriminator: type`. */
export const EVENT_DISCRIMINATOR_EXTENSION = 'x-event-discriminator';

/** Names a detected discriminator is preferred by when two properties tell the events apart equally well (D211 event discriminator declared or detected). */
const PREFERRED_DISCRIMINATORS = ['event_type', 'type', 'event', 'eventType', 'event_name', 'eventName', 'kind', 'topic'];

/** Names of the contract's event exports: an event's type name never takes one. */
const RESERVED_TYPE_NAMES = new Set(['WebhookEvent', 'WebhookEventMap', 'WebhookEventName', 'WebhookEventType']);

export interface EventsInput {
  resolver: RefResolver;
  document: Obj;
  /** The model's operations (final operation ids): their `callbacks` are read from the document. */
  operations: readonly OperationModel[];
  asyncMessages: readonly AsyncMessageInput[];
  /** The discriminator a caller imposes (BuildModelOptions.webhookDiscriminator); else the extension, else detected. */
  discriminator: string | undefined;
  /** The header parameters of a webhook or callback operation (path item's and operation's, as for operations). */
  /** `operationPointer`: where the operation is written (its path item is the pointer's parent). */
  headerParameters: (pathItemParameters: unknown, operationParameters: unknown, operationPointer: string) => ParameterModel[];
  /** Names the contract exports already (the enums'): no event type takes one. */
  takenTypeNames: readonly string[];
}

export interface EventsModel {
  events: WebhookEventModel[];
  discriminator: string | undefined;
}

/** One webhook or callback operation with a payload, before events are named and merged. */
interface Declaration extends DiscriminatorCandidate {
  origin: Exclude<EventOriginModel, { kind: 'asyncapi' }>;
  /** Its name when its payload does not name it: the webhook's name, the callback's name. */
  name: string;
  /** The name qualified by the operation declaring it (callbacks), when two declarations share `name`. */
  qualifiedName: string;
  schema: JsonSchema;
  /** Where the payload schema is written in the bundled document. */
  schemaPointer: string;
  /** The payload schema as written (a `$ref` or the inline schema): two declarations with the same key send the same payload. */
  schemaKey: string;
  mediaType: string;
  typeRef: string | undefined;
  summary: string | undefined;
  description: string | undefined;
  category: string | undefined;
  examples: unknown[];
  headers: ParameterModel[];
  /** Required properties with one constant string value (candidates for the discriminator). */
  constants: Map<string, string>;
}

const pointerToken = escapePointerToken;

/** The payload of a webhook or callback operation: its JSON media type's schema (else the first media type's). */
function payloadOf(
  resolver: RefResolver,
  op: Obj,
  operationPointer: string,
): { mediaType: string; schema: JsonSchema; pointer: string; media: Obj } | undefined {
  const { node: body, pointer: bodyAt } = resolver.locate<unknown>(op.requestBody, `${operationPointer}/requestBody`);
  if (!isObj(body) || !isObj(body.content)) return undefined;
  const content = sortedEntries(body.content).filter(([, media]) => isObj(media) && media.schema !== undefined);
  const [mediaType, media] = content.find(([type]) => /json/.test(type)) ?? content[0] ?? [];
  if (mediaType === undefined || !isObj(media)) return undefined;
  return { mediaType, schema: media.schema as JsonSchema, pointer: `${bodyAt}/content/${pointerToken(mediaType)}/schema`, media };
}

/** `x-format` of the payload's top-level properties (human formats such as `YYYY-MM-DD HH:MM:SS`). */
function payloadFormats(resolver: RefResolver, schema: unknown): WebhookEventModel['formats'] {
  const { properties } = resolver.objectShape(schema);
  const out: WebhookEventModel['formats'] = [];
  for (const [field, prop] of sortedEntries(properties)) {
    const resolved = resolver.deref<unknown>(prop);
    const format = isObj(prop) ? (str(prop['x-format']) ?? (isObj(resolved) ? str(resolved['x-format']) : undefined)) : undefined;
    if (format !== undefined) out.push({ field, format });
  }
  return out;
}

/** The payload schema's `examples` (else its `example`), then the media type's `example` and `examples` values. */
function payloadExamples(resolver: RefResolver, schema: unknown, media?: Obj): unknown[] {
  const s = resolver.deref<unknown>(schema);
  const out: unknown[] = [];
  if (isObj(s)) {
    if (Array.isArray(s.examples)) out.push(...s.examples);
    else if (s.example !== undefined) out.push(s.example);
  }
  if (media !== undefined) {
    if (media.example !== undefined) out.push(media.example);
    for (const [, example] of sortedEntries(isObj(media.examples) ? media.examples : {})) {
      const resolved = resolver.deref<unknown>(example);
      if (isObj(resolved) && resolved.value !== undefined) out.push(resolved.value);
    }
  }
  return out;
}

/**
 * Properties of an object payload whose value is one string (`const`, or an `enum` of one); `requiredOnly`: only those
 * every payload must carry (a property a body may leave out cannot name its event).
 */
function constantProperties(resolver: RefResolver, schema: unknown, requiredOnly: boolean): Map<string, string> {
  const out = new Map<string, string>();
  const { properties, required } = resolver.objectShape(schema);
  for (const [name, raw] of sortedEntries(properties)) {
    if (requiredOnly && !required.has(name)) continue;
    const prop = resolver.deref<unknown>(raw);
    if (!isObj(prop)) continue;
    if (typeof prop.const === 'string') out.set(name, prop.const);
    else if (Array.isArray(prop.enum) && prop.enum.length === 1 && typeof prop.enum[0] === 'string') out.set(name, prop.enum[0]);
  }
  return out;
}

/** `components["schemas"]["X"]` for a `$ref` to a component schema, else undefined. */
function componentTypeRef(schema: JsonSchema): string | undefined {
  const ref = isObj(schema) && typeof schema.$ref === 'string' ? schema.$ref : undefined;
  const match = ref === undefined ? null : /^#\/components\/schemas\/([^/]+)$/.exec(ref);
  if (match === null) return undefined;
  const name = unescapePointerToken(decodeURIComponent(match[1]!));
  return `components["schemas"][${JSON.stringify(name)}]`;
}

function declaration(
  input: EventsInput,
  origin: Declaration['origin'],
  op: Obj,
  pathItem: Obj,
  fallbackCategory: string | undefined,
): Declaration | undefined {
  const { resolver } = input;
  const payload = payloadOf(resolver, op, origin.pointer);
  if (payload === undefined) return undefined;
  const qualifiedName = origin.kind === 'callback' ? `${origin.operationId}.${origin.name}` : origin.name;
  return {
    origin,
    name: origin.name,
    qualifiedName,
    schema: payload.schema,
    schemaPointer: payload.pointer,
    schemaKey: JSON.stringify(payload.schema),
    mediaType: payload.mediaType,
    typeRef:
      componentTypeRef(payload.schema) ??
      (origin.kind === 'webhook'
        ? `NonNullable<webhooks[${JSON.stringify(origin.name)}][${JSON.stringify(origin.method)}]["requestBody"]>["content"][${JSON.stringify(payload.mediaType)}]`
        : undefined),
    summary: str(op.summary),
    description: str(op.description),
    category: (Array.isArray(op.tags) ? str(op.tags[0]) : undefined) ?? fallbackCategory,
    examples: payloadExamples(resolver, payload.schema, payload.media),
    headers: input.headerParameters(pathItem.parameters, op.parameters, origin.pointer).filter((p) => p.in === 'header'),
    constants: constantProperties(resolver, payload.schema, true),
  };
}

/** Every webhook (its first method with a payload) and every callback operation with a payload, in document order. */
function declarations(input: EventsInput): Declaration[] {
  const { resolver, document } = input;
  const out: Declaration[] = [];
  for (const [name, item] of sortedEntries(isObj(document.webhooks) ? document.webhooks : {})) {
    const pathItem = resolver.deref<unknown>(item);
    if (!isObj(pathItem)) continue;
    for (const method of HTTP_METHODS) {
      const op = pathItem[method];
      if (!isObj(op)) continue;
      const origin = { kind: 'webhook', name, method, pointer: `#/webhooks/${pointerToken(name)}/${method}` } as const;
      const found = declaration(input, origin, op, pathItem, undefined);
      if (found === undefined) continue;
      out.push(found);
      break;
    }
  }
  const paths = isObj(document.paths) ? document.paths : {};
  for (const operation of input.operations) {
    const item = resolver.deref<unknown>(paths[operation.path]);
    const op = isObj(item) ? item[operation.method] : undefined;
    if (!isObj(op) || !isObj(op.callbacks)) continue;
    const operationPointer = `#/paths/${pointerToken(operation.path)}/${operation.method}`;
    for (const [name, raw] of sortedEntries(op.callbacks)) {
      const callback = resolver.deref<unknown>(raw);
      for (const [expression, rawItem] of sortedEntries(isObj(callback) ? callback : {})) {
        const pathItem = resolver.deref<unknown>(rawItem);
        if (!isObj(pathItem)) continue;
        for (const method of HTTP_METHODS) {
          const callbackOp = pathItem[method];
          if (!isObj(callbackOp)) continue;
          const origin = {
            kind: 'callback',
            name,
            expression,
            method,
            operationId: operation.operationId,
            operationMethod: operation.method,
            operationPath: operation.path,
            pointer: `${operationPointer}/callbacks/${pointerToken(name)}/${pointerToken(expression)}/${method}`,
          } as const;
          const found = declaration(input, origin, callbackOp, pathItem, operation.tags[0]);
          if (found !== undefined) out.push(found);
        }
      }
    }
  }
  return out;
}

/** What detection reads of a payload: the name it would otherwise go by, its schema, its constant properties. */
export interface DiscriminatorCandidate {
  name: string;
  schemaKey: string;
  constants: Map<string, string>;
}

/**
 * The payloads carrying `property`, by its value. A value must stand for one payload declared under one name: a value
 * two payloads share, or two differently named declarations (`object: "event"` on every payload, one notification
 * schema for every callback), names no event. `strict`: then the property is no discriminator (undefined); else only
 * those declarations are left out (known by name).
 */
function valuesOf<T extends DiscriminatorCandidate>(property: string, decls: readonly T[], strict: boolean): Map<string, T[]> | undefined {
  const byValue = new Map<string, T[]>();
  for (const d of decls) {
    const value = d.constants.get(property);
    if (value !== undefined) byValue.set(value, [...(byValue.get(value) ?? []), d]);
  }
  for (const [value, group] of byValue) {
    if (new Set(group.map((d) => d.schemaKey)).size === 1 && new Set(group.map((d) => d.name)).size === 1) continue;
    if (strict) return undefined;
    byValue.delete(value);
  }
  return byValue;
}

/**
 * The property that tells the most events apart (D211 event discriminator declared or detected): a required constant string of the payloads, one value per
 * payload schema; ties go to the usual names (`event_type`, `type`, `event`, ...), then to the first by name.
 */
export function detectDiscriminator(decls: readonly DiscriminatorCandidate[]): string | undefined {
  const candidates = [...new Set(decls.flatMap((d) => [...d.constants.keys()]))].sort(compareStrings);
  const rank = (name: string): number => {
    const index = PREFERRED_DISCRIMINATORS.indexOf(name);
    return index === -1 ? PREFERRED_DISCRIMINATORS.length : index;
  };
  let best: { name: string; score: number } | undefined;
  for (const name of candidates) {
    const score = valuesOf(name, decls, true)?.size ?? 0;
    if (score > 0 && (best === undefined || score > best.score || (score === best.score && rank(name) < rank(best.name)))) {
      best = { name, score };
    }
  }
  return best?.name;
}

function eventTypeName(name: string): string {
  const base = pascalCase(name) || 'Unnamed';
  return base.endsWith('Event') ? base : `${base}Event`;
}

/** `base`, else `alternative`, else `base2`, `base3`, ... : the first not in `taken` (which it joins). */
function unique(base: string, taken: Set<string>, alternative?: string): string {
  let name = alternative !== undefined && taken.has(base) && !taken.has(alternative) ? alternative : base;
  for (let n = 2; taken.has(name); n++) name = `${base}${n}`;
  taken.add(name);
  return name;
}

function eventFrom(
  resolver: RefResolver,
  name: string,
  group: readonly Declaration[],
  discriminatorValue: string | undefined,
): WebhookEventModel {
  const first = group[0]!;
  const event: WebhookEventModel = {
    eventType: name,
    typeName: '',
    source: 'openapi',
    origins: group.map((d) => d.origin),
    discriminatorValue,
    // one payload declared in several places: each piece of prose from the first declaration that has it
    summary: group.find((d) => d.summary !== undefined)?.summary,
    description: group.find((d) => d.description !== undefined)?.description,
    schema: first.schema,
    node: undefined as unknown as SchemaNode,
    mediaType: first.mediaType,
    typeRef: first.typeRef,
    typeLayerSchema: undefined,
    asyncapiMessage: undefined,
    category: group.find((d) => d.category !== undefined)?.category,
    formats: [],
    examples: group.find((d) => d.examples.length > 0)?.examples ?? [],
    headers: group.find((d) => d.headers.length > 0)?.headers ?? [],
  };
  // the payload's typed node, built when first read (D475 typed schema model with one walker, a node beside every raw schema)
  return withLazyNode(event, () => resolver.nodes.build(first.schema, first.schemaPointer));
}

/**
 * The events of the document: named by discriminator value where the payload has one (declarations of one value
 * are one event), else by webhook or callback name (callbacks of one name with different payloads are qualified by
 * their operation), then the AsyncAPI messages carrying the discriminator merged in; sorted by name.
 */
export function buildEvents(input: EventsInput): EventsModel {
  const { resolver, document } = input;
  const decls = declarations(input);
  const declared = input.discriminator ?? str(document[EVENT_DISCRIMINATOR_EXTENSION]);
  const messages = input.asyncMessages
    .filter((m) => m.payload !== undefined)
    .map((m) => ({ message: m, constants: constantProperties(resolver, m.payload, false) }));
  // AsyncAPI messages describe the OpenAPI events again (resolved copies): they take part in detection only alone.
  const discriminator =
    declared ??
    detectDiscriminator(
      decls.length > 0 ? decls : messages.map(({ message, constants }) => ({ name: message.name, schemaKey: message.name, constants })),
    );
  // A declared discriminator may leave some payloads out (or share a value between two): those are known by name.
  const values = discriminator === undefined ? new Map<string, Declaration[]>() : valuesOf(discriminator, decls, false)!;
  const events = new Map<string, WebhookEventModel>();
  const inUnion = new Set<Declaration>();
  for (const [value, group] of values) {
    events.set(value, eventFrom(resolver, value, group, value));
    for (const d of group) inUnion.add(d);
  }
  // By name: one event per name and payload; a name two payloads share is qualified by the operation declaring each.
  const byName = new Map<string, Declaration[]>();
  for (const d of decls) if (!inUnion.has(d)) byName.set(d.name, [...(byName.get(d.name) ?? []), d]);
  const taken = new Set(events.keys());
  for (const [name, group] of byName) {
    const payloads = new Map<string, Declaration[]>();
    for (const d of group) payloads.set(d.schemaKey, [...(payloads.get(d.schemaKey) ?? []), d]);
    const plain = payloads.size === 1 && !taken.has(name);
    for (const same of payloads.values()) {
      const eventName = unique(plain ? name : same[0]!.qualifiedName, taken);
      events.set(eventName, eventFrom(resolver, eventName, same, undefined));
    }
  }
  for (const event of events.values()) event.formats = payloadFormats(resolver, event.schema);

  if (discriminator !== undefined) {
    for (const { message, constants } of messages) {
      const value = constants.get(discriminator);
      if (value === undefined) continue;
      const existing = events.get(value);
      const category = message.tags?.[0];
      if (existing?.discriminatorValue !== undefined) {
        // The same event in both documents: the AsyncAPI message adds its name and category (its tags group events).
        existing.asyncapiMessage = message.name;
        existing.origins.push({ kind: 'asyncapi', name: message.name });
        if (category !== undefined) existing.category = category;
        continue;
      }
      if (existing !== undefined) continue;
      const event: WebhookEventModel = {
        eventType: value,
        typeName: '',
        source: 'asyncapi',
        origins: [{ kind: 'asyncapi', name: message.name }],
        discriminatorValue: value,
        summary: message.summary,
        description: message.description,
        schema: message.payload as JsonSchema,
        node: undefined as unknown as SchemaNode,
        mediaType: 'application/json',
        typeRef: undefined,
        typeLayerSchema: undefined,
        asyncapiMessage: message.name,
        category,
        formats: payloadFormats(resolver, message.payload),
        examples: payloadExamples(resolver, message.payload),
        headers: [],
      };
      // an AsyncAPI-only payload (refs already inlined): its pointer is into the AsyncAPI document (D475 typed schema model with one walker, a node beside every raw schema)
      const payloadPointer = `#/components/messages/${pointerToken(message.name)}/payload`;
      events.set(
        value,
        withLazyNode(event, () => resolver.nodes.build(message.payload, payloadPointer)),
      );
    }
  }

  const sorted = [...events.values()].sort((a, b) => compareStrings(a.eventType, b.eventType));
  nameTypes(sorted, document, input.takenTypeNames);
  return { events: sorted, discriminator };
}

/**
 * Type names, unique and none an export of the contract's; an inline callback payload or an AsyncAPI-only message gets
 * a component schema of the type layer, named after its type unless the document has a schema of that name.
 */
function nameTypes(events: WebhookEventModel[], document: Obj, taken: readonly string[]): void {
  const typeNames = new Set([...RESERVED_TYPE_NAMES, ...taken]);
  const components = isObj(document.components) ? document.components : {};
  const schemaNames = new Set(Object.keys(isObj(components.schemas) ? components.schemas : {}));
  for (const event of events) {
    const typeName = eventTypeName(event.eventType);
    event.typeName = unique(typeName, typeNames, `${typeName}Payload`);
    if (event.typeRef !== undefined) continue;
    const name = unique(event.typeName, schemaNames, `${event.typeName}Payload`);
    event.typeLayerSchema = name;
    event.typeRef = `components["schemas"][${JSON.stringify(name)}]`;
  }
}
