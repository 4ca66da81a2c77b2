/**
 * Content digests for the incremental caches (D440 the generate cache and its salt): what a cached unit read is compared by the digest of its
 * JSON text, never by object identity, so a cache survives a re-parse of an unchanged file.
 */
import { createHash } from 'node:crypto';

/** sha1 of a string (a cache key, not a security boundary: collisions are not an attacker's concern here). */
export function digestText(text: string): string {
  return createHash('sha1').update(text).digest('base64url');
}

/** Digest of a JSON value (key order as written: the document's order is part of what the emitters read). */
export function digestJson(value: unknown): string {
  return digestText(value === undefined ? 'undefined' : JSON.stringify(value));
}
