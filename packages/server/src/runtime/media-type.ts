/**
 * A declared media type key as a `Content-Type` header can carry it. A spec's key is free text (Snyk's
 * `application/json, charset=utf-8`, a comma for a semicolon); Express's `res.type`/`res.send` format the header with
 * the `content-type` package and throw on such a value, which turned a client's invalid request into Express's HTML
 * 500 page with a stack trace. A key the package accepts is sent as written; otherwise its type before the first `;` or
 * `,`, when that is a valid type; otherwise `application/octet-stream` (a body of unknown type, RFC 9110 8.3).
 */
import { format, parse } from 'content-type';

const sendable = new Map<string, string>();

function valid(contentType: string): boolean {
  try {
    format(parse(contentType));
    return true;
  } catch {
    return false;
  }
}

/** The `Content-Type` to send for a declared media type key. */
export function sendableMediaType(declared: string): string {
  let value = sendable.get(declared);
  if (value === undefined) {
    const essence = declared.split(/[;,]/)[0]!.trim();
    value = valid(declared) ? declared : valid(essence) ? essence : 'application/octet-stream';
    // a spec has few media type keys; the bound keeps a hostile caller's own values (a handler's contentType) out
    if (sendable.size < 1024) sendable.set(declared, value);
  }
  return value;
}
