/**
 * Request bodies as the spec declares them (D272 contract request bodies per media type): JSON; `application/x-www-form-urlencoded` (nested objects as
 * `a[b]`, arrays as repeated keys); `multipart/form-data` as real parts with a boundary (fetch's FormData writes it),
 * a property of `format: binary` (or `contentMediaType`, or `contentEncoding`) as a file part whose bytes are a real
 * file of the declared type (the `encoding` content type, else the schema's): a minimal PDF, PNG or JPEG, so a server
 * that sniffs the bytes accepts it. Anything else: the value as text.
 */
import { isObj, type MediaSpec } from './document.js';
import type { Deref, Json } from './samples.js';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
const JPEG =
  '/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=';
const PDF = '%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n';

/** A small real file of a content type (the first of a comma list that the checker can make), and its name. */
export function sampleFile(contentTypes: string | undefined): { bytes: Uint8Array<ArrayBuffer>; type: string; name: string } {
  const types = (contentTypes ?? 'application/octet-stream').split(',').map((t) => t.trim().toLowerCase());
  for (const type of types) {
    if (type === 'application/pdf') return { bytes: Buffer.from(PDF, 'latin1'), type, name: 'sample.pdf' };
    if (type === 'image/png' || type === 'image/*') return { bytes: Buffer.from(PNG, 'base64'), type: 'image/png', name: 'sample.png' };
    if (type === 'image/jpeg') return { bytes: Buffer.from(JPEG, 'base64'), type, name: 'sample.jpg' };
    if (type.startsWith('text/')) return { bytes: Buffer.from('sample text\n'), type, name: 'sample.txt' };
    if (type === 'application/json') return { bytes: Buffer.from('{}'), type, name: 'sample.json' };
  }
  return { bytes: Buffer.from('paygate contract sample bytes\n'), type: types[0] ?? 'application/octet-stream', name: 'sample.bin' };
}

const isJsonMedia = (mt: string): boolean => /^application\/(.+\+)?json$/i.test(mt.split(';')[0]!.trim());

/** Whether a (dereferenced) property schema is a file: `format: binary`, `contentMediaType` or `contentEncoding`. */
export function isFileSchema(schema: Json | undefined): boolean {
  return (
    isObj(schema) &&
    (schema['format'] === 'binary' || typeof schema['contentMediaType'] === 'string' || schema['contentEncoding'] === 'base64')
  );
}

/** The property schemas of an object schema (allOf parts merged), dereferenced. */
export function propertySchemas(schema: Json | undefined, deref: Deref): Record<string, Json> {
  const s = deref(schema);
  if (!isObj(s)) return {};
  const out: Record<string, Json> = {};
  for (const part of Array.isArray(s['allOf']) ? s['allOf'] : []) Object.assign(out, propertySchemas(part, deref));
  if (isObj(s['properties'])) for (const [k, v] of Object.entries(s['properties'])) out[k] = deref(v) ?? v;
  return out;
}

const text = (v: Json): string => (typeof v === 'string' ? v : JSON.stringify(v));

function formPairs(prefix: string, value: Json, out: [string, string][]): void {
  if (Array.isArray(value)) for (const v of value) formPairs(prefix, v, out);
  else if (isObj(value)) for (const [k, v] of Object.entries(value)) formPairs(`${prefix}[${k}]`, v, out);
  else if (value !== null) out.push([prefix, String(value)]);
}

export interface EncodedBody {
  body: string | FormData | Uint8Array;
  /** The Content-Type to send (none for FormData: fetch writes it with the boundary). */
  contentType: string | undefined;
  /** What the body was, for reports. */
  summary: string;
}

/** The body of a request for a media type from a JSON value (the sample, an example, or negative data). */
export function encodeBody(media: MediaSpec, value: Json, deref: Deref): EncodedBody {
  const mt = media.mediaType.toLowerCase();
  if (isJsonMedia(mt)) {
    const body = JSON.stringify(value);
    return { body, contentType: media.mediaType, summary: body.length > 300 ? `${body.slice(0, 300)}...` : body };
  }
  if (mt === 'application/x-www-form-urlencoded') {
    const pairs: [string, string][] = [];
    if (isObj(value)) for (const [k, v] of Object.entries(value)) formPairs(k, v, pairs);
    const body = new URLSearchParams(pairs).toString();
    return { body, contentType: media.mediaType, summary: body };
  }
  if (mt.startsWith('multipart/')) {
    const form = new FormData();
    const properties = propertySchemas(media.schema, deref);
    const parts: string[] = [];
    if (isObj(value))
      for (const [name, v] of Object.entries(value)) {
        const schema = properties[name];
        const itemSchema = isObj(schema) && schema['type'] === 'array' ? deref(schema['items']) : undefined;
        if (isFileSchema(schema) || isFileSchema(itemSchema)) {
          const declared =
            media.encoding[name] ??
            (isObj(schema) && typeof schema['contentMediaType'] === 'string' ? schema['contentMediaType'] : undefined);
          const file = sampleFile(declared);
          for (let i = 0; i < (Array.isArray(v) ? Math.max(1, v.length) : 1); i++) {
            form.append(name, new Blob([file.bytes as Uint8Array<ArrayBuffer>], { type: file.type }), file.name);
          }
          parts.push(`${name}=<${file.type} file ${file.bytes.length} B>`);
        } else if (Array.isArray(v)) {
          for (const item of v) form.append(name, text(item));
          parts.push(`${name}=${JSON.stringify(v)}`);
        } else if (v !== null) {
          if (isObj(v)) form.append(name, new Blob([JSON.stringify(v)], { type: media.encoding[name] ?? 'application/json' }));
          else form.append(name, String(v));
          parts.push(`${name}=${text(v)}`);
        }
      }
    return { body: form, contentType: undefined, summary: `multipart: ${parts.join(', ')}` };
  }
  if (mt === 'application/octet-stream' || /^(image|audio|video)\//.test(mt) || mt === 'application/pdf') {
    const file = sampleFile(mt);
    return { body: file.bytes, contentType: media.mediaType, summary: `<${file.type} ${file.bytes.length} B>` };
  }
  const body = text(value);
  return { body, contentType: media.mediaType, summary: body.slice(0, 300) };
}

/** The media type the checker sends when a body has several: JSON, then form, then multipart, then the first. */
export function preferredMedia(media: readonly MediaSpec[]): MediaSpec | undefined {
  return (
    media.find((m) => isJsonMedia(m.mediaType)) ??
    media.find((m) => m.mediaType.toLowerCase() === 'application/x-www-form-urlencoded') ??
    media.find((m) => m.mediaType.toLowerCase().startsWith('multipart/')) ??
    media[0]
  );
}
