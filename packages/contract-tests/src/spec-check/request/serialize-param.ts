/** A parameter value as name/value pairs on the wire, per its OpenAPI `style` and `explode`. */
import { isObj, type ParamSpec } from '../document.js';
import type { Json } from '../samples.js';

export function serializeParam(p: ParamSpec, value: Json): [string, string][] {
  if (Array.isArray(value)) {
    if (p.style === 'deepObject') return value.map((v) => [`${p.name}[]`, String(v)]);
    if (p.explode === false || p.in !== 'query') return [[p.name, value.map(String).join(',')]];
    return value.map((v) => [p.name, String(v)]);
  }
  if (isObj(value)) {
    if (p.style === 'deepObject') return Object.entries(value).map(([k, v]) => [`${p.name}[${k}]`, String(v)]);
    if (p.explode === false) return [[p.name, Object.entries(value).flat().map(String).join(',')]];
    return Object.entries(value).map(([k, v]) => [k, String(v)]);
  }
  return [[p.name, String(value)]];
}
