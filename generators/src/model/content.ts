/**
 * Content maps (request bodies, responses) and response headers: each media type with its raw schema, its typed node
 * (D475 typed schema model with one walker, a node beside every raw schema) and, for form bodies, its fields.
 */
import { childPointer, isObj } from '../util/json.js';
import { sortedEntries } from '../util/sorted.js';
import { str } from './raw.js';
import type { RefResolver } from './ref-resolver.js';
import { withLazyNode } from './schema/build.js';
import type { SchemaNode } from './schema/types.js';
import type { HeaderModel, JsonSchema, MediaTypeModel, MultipartField, RequestBodyModel } from './types.js';

type Obj = Record<string, unknown>;

function schemaTypes(schema: Obj): string[] {
  const t = schema.type;
  return Array.isArray(t) ? t.filter((x): x is string => typeof x === 'string') : typeof t === 'string' ? [t] : [];
}

function isBinarySchema(resolver: RefResolver, schema: unknown): boolean {
  const s = resolver.deref<unknown>(schema);
  if (!isObj(s)) return false;
  return s.format === 'binary' || s.format === 'base64' || typeof s.contentMediaType === 'string' || typeof s.contentEncoding === 'string';
}

function formFields(resolver: RefResolver, schema: unknown): MultipartField[] | undefined {
  const resolved = resolver.deref<unknown>(schema);
  if (!isObj(resolved)) return undefined;
  const { properties, required } = resolver.objectShape(resolved);
  if (Object.keys(properties).length === 0) return undefined;
  return sortedEntries(properties).map(([name, propSchema]): MultipartField => {
    const prop = resolver.deref<unknown>(propSchema);
    const isArray = isObj(prop) && schemaTypes(prop).includes('array');
    const items = isArray && isObj(prop) ? prop.items : undefined;
    const binary = isArray ? isBinarySchema(resolver, items) : isBinarySchema(resolver, prop);
    const kind = binary ? (isArray ? 'files' : 'file') : isArray ? 'strings' : 'string';
    return { name, required: required.has(name), kind };
  });
}

/** Gives `target` the typed node of `schema`, written at `pointer` (undefined when there is none), built when first read. */
export function withNode<T extends { node: SchemaNode | undefined }>(
  target: T,
  resolver: RefResolver,
  schema: JsonSchema | undefined,
  pointer: string,
): T {
  return withLazyNode(target, () => (schema === undefined ? undefined : resolver.nodes.build(schema, pointer)));
}

/** `pointer`: where the `content` map is written. */
export function buildContent(resolver: RefResolver, content: unknown, pointer: string): MediaTypeModel[] {
  return sortedEntries(isObj(content) ? content : {}).map(([mediaType, rawMedia]): MediaTypeModel => {
    const { node: media, pointer: mediaPointer } = resolver.locate(rawMedia, childPointer(pointer, mediaType));
    const schema = isObj(media) ? (media.schema as JsonSchema | undefined) : undefined;
    const form = /^multipart\/|^application\/x-www-form-urlencoded/.test(mediaType);
    const model: MediaTypeModel = {
      mediaType,
      schema,
      node: undefined,
      fields: form && schema !== undefined ? formFields(resolver, schema) : undefined,
    };
    return withNode(model, resolver, schema, childPointer(mediaPointer, 'schema'));
  });
}

/** `pointer`: where the `requestBody` is written. */
export function buildRequestBody(resolver: RefResolver, raw: unknown, pointer: string): RequestBodyModel | undefined {
  if (raw === undefined) return undefined;
  const { node: body, pointer: at } = resolver.locate<Obj>(raw, pointer);
  if (!isObj(body)) return undefined;
  return {
    required: body.required === true,
    description: str(body.description),
    content: buildContent(resolver, body.content, childPointer(at, 'content')),
  };
}

/** `pointer`: where the `headers` map is written. */
export function buildHeaders(resolver: RefResolver, raw: unknown, pointer: string): HeaderModel[] {
  return sortedEntries(isObj(raw) ? raw : {}).map(([name, h]) => {
    const { node: header, pointer: at } = resolver.locate<Obj>(h, childPointer(pointer, name));
    const schema = isObj(header) ? (header.schema as JsonSchema | undefined) : undefined;
    const model: HeaderModel = {
      name,
      required: isObj(header) && header.required === true,
      description: isObj(header) ? str(header.description) : undefined,
      schema,
      node: undefined,
    };
    return withNode(model, resolver, schema, childPointer(at, 'schema'));
  });
}
