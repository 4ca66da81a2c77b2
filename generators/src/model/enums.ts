/** Named enumerations of the component schemas (the contract's enum constants). */
import { escapePointerToken, isObj } from '../util/json.js';
import { pascalCase } from '../util/naming.js';
import { compareStrings, sortedEntries } from '../util/sorted.js';
import { str } from './raw.js';
import type { EnumModel, JsonSchema } from './types.js';

const ENUM_VALUE = (v: unknown): v is string | number | boolean | null => v === null || ['string', 'number', 'boolean'].includes(typeof v);

/**
 * Named enumerations: every component schema with an `enum`, and every inline `enum` on a component's property
 * (or on its array items). A property enum is named after the property (`business_mode` -> `BusinessMode`) when
 * that name is free and every property of that name carries the same values; otherwise after schema + property
 * (`KycUpdateRequestStatus`). Identical property enums share one entry.
 */
export function collectEnums(schemas: readonly { name: string; schema: JsonSchema }[]): EnumModel[] {
  const out = new Map<string, EnumModel>();
  const escape = escapePointerToken;
  for (const { name, schema } of schemas) {
    if (!isObj(schema) || !Array.isArray(schema.enum) || !schema.enum.every(ENUM_VALUE)) continue;
    const id = pascalCase(name);
    if (id.length === 0 || out.has(id)) continue;
    out.set(id, {
      name: id,
      values: [...schema.enum],
      description: str(schema.description),
      pointers: [`#/components/schemas/${escape(name)}`],
    });
  }
  interface Candidate {
    schema: string;
    property: string;
    values: EnumModel['values'];
    description: string | undefined;
    pointer: string;
  }
  const candidates: Candidate[] = [];
  for (const { name, schema } of schemas) {
    if (!isObj(schema)) continue;
    const members = [schema, ...(Array.isArray(schema.allOf) ? schema.allOf.filter(isObj) : [])];
    members.forEach((member, index) => {
      const base = index === 0 ? `#/components/schemas/${escape(name)}` : `#/components/schemas/${escape(name)}/allOf/${index - 1}`;
      for (const [property, prop] of sortedEntries(isObj(member.properties) ? member.properties : {})) {
        if (!isObj(prop)) continue;
        const target = Array.isArray(prop.enum) ? prop : isObj(prop.items) && Array.isArray(prop.items.enum) ? prop.items : undefined;
        if (target === undefined || !(target.enum as unknown[]).every(ENUM_VALUE)) continue;
        const pointer = `${base}/properties/${escape(property)}${target === prop ? '' : '/items'}`;
        candidates.push({
          schema: name,
          property,
          values: [...(target.enum as EnumModel['values'])],
          description: str(target.description) ?? str(prop.description),
          pointer,
        });
      }
    });
  }
  const byProperty = new Map<string, Candidate[]>();
  for (const c of candidates) {
    const id = pascalCase(c.property);
    byProperty.set(id, [...(byProperty.get(id) ?? []), c]);
  }
  const same = (a: EnumModel['values'], b: EnumModel['values']) => a.length === b.length && a.every((v, i) => v === b[i]);
  for (const [id, group] of [...byProperty].sort(([a], [b]) => compareStrings(a, b))) {
    if (id.length === 0) continue;
    const uniform = group.every((c) => same(c.values, group[0]!.values));
    if (uniform && !out.has(id)) {
      out.set(id, { name: id, values: group[0]!.values, description: group[0]!.description, pointers: group.map((c) => c.pointer) });
      continue;
    }
    for (const c of group) {
      let qualified = `${pascalCase(c.schema)}${id}`;
      const existing = out.get(qualified);
      if (existing !== undefined && same(existing.values, c.values)) {
        existing.pointers.push(c.pointer);
        continue;
      }
      for (let n = 2; out.has(qualified); n++) qualified = `${pascalCase(c.schema)}${id}${n}`;
      out.set(qualified, { name: qualified, values: c.values, description: c.description, pointers: [c.pointer] });
    }
  }
  return [...out.values()].sort((a, b) => compareStrings(a.name, b.name));
}
