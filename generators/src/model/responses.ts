/** An operation's responses: sorted exact codes, then ranges (each with the codes no exact entry takes), then `default`. */
import { childPointer, isObj } from '../util/json.js';
import { compareStrings, sortedEntries } from '../util/sorted.js';
import { buildContent, buildHeaders } from './content.js';
import { str } from './raw.js';
import type { RefResolver } from './ref-resolver.js';
import type { ResponseModel } from './types.js';

type Obj = Record<string, unknown>;

function statusOrder(status: string): string {
  // exact codes first in numeric order, then ranges, then default
  if (/^\d{3}$/.test(status)) return `0${status}`;
  if (/^\dXX$/i.test(status)) return `1${status.toUpperCase()}`;
  return `2${status}`;
}

/** `pointer`: where the `responses` map is written. */
export function buildResponses(resolver: RefResolver, raw: unknown, pointer: string): ResponseModel[] {
  const entries = sortedEntries(isObj(raw) ? raw : {}).filter(([status]) => !status.startsWith('x-'));
  const exact = new Set(
    entries
      .map(([s]) => s)
      .filter((s) => /^\d{3}$/.test(s))
      .map(Number),
  );
  return entries
    .sort(([a], [b]) => compareStrings(statusOrder(a), statusOrder(b)))
    .map(([status, r]): ResponseModel => {
      const { node: response, pointer: at } = resolver.locate<Obj>(r, childPointer(pointer, status));
      let kind: ResponseModel['kind'] = 'default';
      let statusCodes: number[] = [];
      if (/^\d{3}$/.test(status)) {
        kind = 'exact';
        statusCodes = [Number(status)];
      } else if (/^[1-5]XX$/i.test(status)) {
        kind = 'range';
        const base = Number(status[0]) * 100;
        for (let code = base; code < base + 100; code++) if (!exact.has(code)) statusCodes.push(code);
      }
      return {
        status: kind === 'range' ? status.toUpperCase() : status,
        statusCodes,
        kind,
        description: isObj(response) ? (str(response.description) ?? '') : '',
        content: isObj(response) ? buildContent(resolver, response.content, childPointer(at, 'content')) : [],
        headers: isObj(response) ? buildHeaders(resolver, response.headers, childPointer(at, 'headers')) : [],
      };
    });
}
