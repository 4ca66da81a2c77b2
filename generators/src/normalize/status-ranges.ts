/**
 * Response status ranges spelled as OpenAPI writes them (`4XX`), once, before anything reads the document (decision
 * D199: status ranges in any case).
 *
 * OpenAPI names the ranges `1XX` to `5XX`; vendors also write `4xx`. openapi-typescript keeps a response key as written
 * (`"4xx"`), while the model, the handlers and the client index `"4XX"`: every emitted type must read one spelling, so
 * the document itself is rewritten (the type layer, the model, the embedded document and the docs then agree). A
 * responses object holding one range in two spellings (`4xx` and `4XX`) is refused: which one applies is not written.
 */
import { HTTP_METHODS } from '../model/types.js';
import { pointerToken, UnsupportedSpecError } from '../parse/refusal.js';
import { isObj } from '../util/json.js';

type Obj = Record<string, unknown>;

const RANGE = /^[1-5]xx$/i;

export interface RenamedRange {
  /** JSON pointer of the responses object. */
  pointer: string;
  from: string;
  to: string;
}

/** The responses object with its ranges in upper case, or itself when they are already. */
function normalizeResponses(responses: Obj, pointer: string, file: string, renamed: RenamedRange[]): Obj {
  const keys = Object.keys(responses);
  if (!keys.some((key) => RANGE.test(key) && key !== key.toUpperCase())) return responses;
  const out: Obj = {};
  for (const key of keys) {
    const to = RANGE.test(key) ? key.toUpperCase() : key;
    if (Object.hasOwn(out, to)) {
      throw new UnsupportedSpecError(
        file,
        `${pointer}/${pointerToken(key)}`,
        `the responses declare the status range ${to} twice (${keys.filter((k) => k.toUpperCase() === to).join(' and ')}); OpenAPI spells it ${to}, and which of the two applies is not written.`,
        `merge the two responses into one ${to} entry.`,
      );
    }
    if (to !== key) renamed.push({ pointer, from: key, to });
    out[to] = responses[key];
  }
  return out;
}

/** A path item with the responses of each operation (and of its callbacks) normalized; itself when nothing changed. */
function normalizePathItem(item: unknown, pointer: string, file: string, renamed: RenamedRange[], depth: number): unknown {
  if (!isObj(item) || depth > 8) return item;
  let copy: Obj | undefined;
  for (const method of HTTP_METHODS) {
    const op = item[method];
    if (!isObj(op)) continue;
    const at = `${pointer}/${method}`;
    let opCopy: Obj | undefined;
    if (isObj(op.responses)) {
      const responses = normalizeResponses(op.responses, `${at}/responses`, file, renamed);
      if (responses !== op.responses) (opCopy ??= { ...op }).responses = responses;
    }
    if (isObj(op.callbacks)) {
      const callbacks = normalizeCallbacks(op.callbacks, `${at}/callbacks`, file, renamed, depth);
      if (callbacks !== op.callbacks) (opCopy ??= { ...op }).callbacks = callbacks;
    }
    if (opCopy !== undefined) (copy ??= { ...item })[method] = opCopy;
  }
  return copy ?? item;
}

/** `name -> expression -> path item` (an operation's `callbacks`, `components.callbacks`). */
function normalizeCallbacks(callbacks: Obj, pointer: string, file: string, renamed: RenamedRange[], depth: number): Obj {
  return mapValues(callbacks, pointer, (callback, at) =>
    isObj(callback) ? mapValues(callback, at, (item, itemAt) => normalizePathItem(item, itemAt, file, renamed, depth + 1)) : callback,
  );
}

/** `map` with each value replaced by `fn(value, pointer)`; the map itself when no value changed. */
function mapValues(map: Obj, pointer: string, fn: (value: unknown, pointer: string) => unknown): Obj {
  let copy: Obj | undefined;
  for (const [key, value] of Object.entries(map)) {
    const next = fn(value, `${pointer}/${pointerToken(key)}`);
    if (next !== value) (copy ??= { ...map })[key] = next;
  }
  return copy ?? map;
}

/**
 * The document with every response status range in upper case: in the operations of `paths`, `webhooks` and
 * `components.pathItems`, and of every callback (`components.responses` is left alone: its keys are names). Returns the
 * document itself when nothing was spelled otherwise, else a copy (the input is not mutated).
 */
export function normalizeStatusRanges<T extends Obj>(document: T, file: string): { document: T; renamed: RenamedRange[] } {
  const renamed: RenamedRange[] = [];
  let copy: Obj | undefined;
  for (const key of ['paths', 'webhooks'] as const) {
    const map = document[key];
    if (!isObj(map)) continue;
    const next = mapValues(map, `#/${key}`, (item, at) => normalizePathItem(item, at, file, renamed, 0));
    if (next !== map) (copy ??= { ...document })[key] = next;
  }
  const components = document.components;
  if (isObj(components)) {
    let componentsCopy: Obj | undefined;
    if (isObj(components.pathItems)) {
      const next = mapValues(components.pathItems, '#/components/pathItems', (item, at) => normalizePathItem(item, at, file, renamed, 0));
      if (next !== components.pathItems) (componentsCopy ??= { ...components }).pathItems = next;
    }
    if (isObj(components.callbacks)) {
      const next = normalizeCallbacks(components.callbacks, '#/components/callbacks', file, renamed, 0);
      if (next !== components.callbacks) (componentsCopy ??= { ...components }).callbacks = next;
    }
    if (componentsCopy !== undefined) (copy ??= { ...document }).components = componentsCopy;
  }
  return { document: (copy ?? document) as T, renamed };
}
