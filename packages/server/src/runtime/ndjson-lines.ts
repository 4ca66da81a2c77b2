/**
 * How the values of an ndjson body are validated (D484, "JSON bodies by media type name, ndjson line by line"): where
 * the declared schema is an array, it describes the whole sequence (`items` each line, `minItems` the count) and the
 * array of values is validated against it; where it is not (Otoroshi's `_bulk` operations declare one exporter's
 * schema), it describes one line, and each value is validated against it, the errors at the value's place
 * (`/body/2/name`).
 */
import { isObj } from '@paygate/contract/json';
import { SchemaReader } from './error-fill.js';
import { isNdjsonMediaType } from './json-media.js';
import type { AjvError, CompiledValidator } from './request-validation.js';
import type { ApiDocument, OperationRoute } from './types.js';

/** The operation's ndjson media types whose declared schema is not an array: each line is validated against it. */
export function linewiseMediaTypes(document: ApiDocument, operation: Pick<OperationRoute, 'path' | 'method'>): ReadonlySet<string> {
  const out = new Set<string>();
  const reader = new SchemaReader(document);
  const item = reader.deref(document.paths?.[operation.path]);
  const op = isObj(item) ? reader.deref(item[operation.method]) : undefined;
  const body = isObj(op) ? reader.deref(op.requestBody) : undefined;
  if (!isObj(body) || !isObj(body.content)) return out;
  for (const [mediaType, media] of Object.entries(body.content))
    if (isNdjsonMediaType(mediaType) && !reader.shape(isObj(media) ? media.schema : undefined).types.includes('array')) out.add(mediaType);
  return out;
}

/** Validates each value of `lines` against the schema of one line; the errors at each value's place in the body. */
export function validateEachLine(validate: CompiledValidator, lines: readonly unknown[], out: AjvError[]): void {
  for (let i = 0; i < lines.length; i++) {
    if (validate({ body: lines[i] })) continue;
    for (const e of validate.errors ?? []) out.push({ ...e, instancePath: e.instancePath.replace(/^\/body/, `/body/${i}`) });
  }
}
