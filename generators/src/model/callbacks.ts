/** An operation's callbacks: each expression's operations with their request bodies. */
import { childPointer, isObj } from '../util/json.js';
import { sortedEntries } from '../util/sorted.js';
import { buildRequestBody } from './content.js';
import { str } from './raw.js';
import type { RefResolver } from './ref-resolver.js';
import { type CallbackModel, HTTP_METHODS } from './types.js';

type Obj = Record<string, unknown>;

/** `pointer`: where the `callbacks` map is written. */
export function buildCallbacks(resolver: RefResolver, raw: unknown, pointer: string): CallbackModel[] {
  const out: CallbackModel[] = [];
  for (const [name, cb] of sortedEntries(isObj(raw) ? raw : {})) {
    const { node: callback, pointer: callbackAt } = resolver.locate<Obj>(cb, childPointer(pointer, name));
    for (const [expression, item] of sortedEntries(isObj(callback) ? callback : {})) {
      const { node: pathItem, pointer: itemAt } = resolver.locate<Obj>(item, childPointer(callbackAt, expression));
      if (!isObj(pathItem)) continue;
      out.push({
        name,
        expression,
        operations: HTTP_METHODS.filter((m) => isObj(pathItem[m])).map((method) => {
          const op = pathItem[method] as Obj;
          return {
            method,
            requestBody: buildRequestBody(resolver, op.requestBody, childPointer(itemAt, method, 'requestBody')),
            summary: str(op.summary),
          };
        }),
      });
    }
  }
  return out;
}
