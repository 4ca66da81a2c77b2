/**
 * Reads an XML body as the value its schema describes (D458 error answers in binary, image and XML media types), so a probe can validate it
 * with the same JSON Schema as a JSON body: OpenAPI's XML Object read backwards. A property is the attribute its
 * `xml.attribute` names, or the child element of its name (`xml.name`); a list the repeated elements of its items'
 * name (or its own), inside an element of its name when `xml.wrapped`; scalars are typed by their schema (integer,
 * number, boolean). Undeclared children are kept by name (text, or an object of their own children; a list when
 * repeated), namespace prefixes are ignored. Throws on text that is not well-formed enough to read.
 */
import { isObj } from '@paygate/contract/json';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Deref = (node: Json | undefined) => Json | undefined;

interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

function decode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity[0] === '#')
      return String.fromCodePoint(entity[1] === 'x' || entity[1] === 'X' ? Number.parseInt(entity.slice(2), 16) : Number(entity.slice(1)));
    return ENTITIES[entity] ?? whole;
  });
}

const local = (name: string): string => name.slice(name.indexOf(':') + 1);

/** The root element of an XML document (declaration, comments, doctype and processing instructions skipped). */
export function parseXml(text: string): XmlElement {
  const source = text
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<\?[\s\S]*?\?>/g, '')
    .replace(/<!DOCTYPE[^>]*>/gi, '');
  const tag = /<(\/?)([A-Za-z_:][\w.:-]*)((?:\s+[\w.:-]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>|<!\[CDATA\[([\s\S]*?)\]\]>/g;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  let last = 0;
  for (let m = tag.exec(source); m !== null; m = tag.exec(source)) {
    const between = source.slice(last, m.index);
    last = tag.lastIndex;
    if (stack.length > 0) stack[stack.length - 1]!.text += decode(between);
    else if (between.trim() !== '') throw new Error('text outside the root element');
    if (m[5] !== undefined) {
      if (stack.length === 0) throw new Error('CDATA outside the root element');
      stack[stack.length - 1]!.text += m[5];
      continue;
    }
    // a tag (not CDATA): the name group always matched; the optional groups are undefined when absent
    const [, closing, name = '', rawAttributes = '', selfClosing] = m;
    if (closing === '/') {
      const open = stack.pop();
      if (open?.name !== name) throw new Error(`</${name}> closes ${open === undefined ? 'nothing' : `<${open.name}>`}`);
      if (stack.length === 0) root = open;
      continue;
    }
    const attributes: Record<string, string> = {};
    for (const a of rawAttributes.matchAll(/([\w.:-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) attributes[a[1]!] = decode(a[2] ?? a[3] ?? '');
    const element: XmlElement = { name, attributes, children: [], text: '' };
    if (stack.length > 0) stack[stack.length - 1]!.children.push(element);
    else if (root !== undefined) throw new Error('a second root element');
    if (selfClosing === '/') {
      if (stack.length === 0) root = element;
    } else stack.push(element);
  }
  if (stack.length > 0 || root === undefined) throw new Error('the document is not closed');
  if (source.slice(last).trim() !== '') throw new Error('text after the root element');
  return root;
}

function xmlOf(schema: Json | undefined, deref: Deref): { name?: string; attribute?: boolean; wrapped?: boolean } {
  const own = isObj(schema) && isObj(schema['xml']) ? schema['xml'] : undefined;
  const target = deref(schema);
  const xml = own ?? (isObj(target) && isObj(target['xml']) ? target['xml'] : {});
  return {
    ...(typeof xml['name'] === 'string' ? { name: local(xml['name']) } : {}),
    ...(xml['attribute'] === true ? { attribute: true } : {}),
    ...(xml['wrapped'] === true ? { wrapped: true } : {}),
  };
}

/** The properties of an object schema, allOf members merged. */
function propertiesOf(schema: Json | undefined, deref: Deref, depth = 0): Record<string, Json> {
  const s = deref(schema);
  if (!isObj(s) || depth > 8) return {};
  const out: Record<string, Json> = {};
  if (Array.isArray(s['allOf'])) for (const member of s['allOf']) Object.assign(out, propertiesOf(member, deref, depth + 1));
  if (isObj(s['properties'])) Object.assign(out, s['properties']);
  return out;
}

function typesOf(schema: Json | undefined, deref: Deref): string[] {
  const s = deref(schema);
  if (!isObj(s)) return [];
  const type = s['type'];
  const types = Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : typeof type === 'string' ? [type] : [];
  if (types.length === 0 && (isObj(s['properties']) || Array.isArray(s['allOf']))) types.push('object');
  if (types.length === 0 && s['items'] !== undefined) types.push('array');
  return types;
}

function scalar(text: string, schema: Json | undefined, deref: Deref): Json {
  const types = typesOf(schema, deref);
  const trimmed = text.trim();
  if ((types.includes('integer') || types.includes('number')) && trimmed !== '' && Number.isFinite(Number(trimmed))) return Number(trimmed);
  if (types.includes('boolean') && (trimmed === 'true' || trimmed === 'false')) return trimmed === 'true';
  if (types.includes('null') && trimmed === '') return null;
  return text;
}

/** An element no schema describes: its text, or an object of its children (repeated names a list). */
function generic(element: XmlElement): Json {
  if (element.children.length === 0 && Object.keys(element.attributes).length === 0) return element.text;
  const out: Record<string, Json> = { ...element.attributes };
  for (const child of element.children) {
    const key = local(child.name);
    const value = generic(child);
    const existing = out[key];
    out[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}

function read(element: XmlElement, schema: Json | undefined, deref: Deref, depth: number): Json {
  if (depth > 16) return generic(element);
  const types = typesOf(schema, deref);
  if (types.includes('array') && !types.includes('object')) {
    const s = deref(schema);
    const items = isObj(s) ? s['items'] : undefined;
    return element.children.map((child) => read(child, items, deref, depth + 1));
  }
  if (!types.includes('object') && (element.children.length > 0 || types.length === 0)) {
    return types.length === 0 && (element.children.length > 0 || Object.keys(element.attributes).length > 0)
      ? generic(element)
      : scalar(element.text, schema, deref);
  }
  if (!types.includes('object')) return scalar(element.text, schema, deref);
  const out: Record<string, Json> = {};
  const used = new Set<XmlElement>();
  const usedAttributes = new Set<string>();
  for (const [key, property] of Object.entries(propertiesOf(schema, deref))) {
    const xml = xmlOf(property, deref);
    const name = xml.name ?? key;
    if (xml.attribute === true) {
      const attribute = Object.keys(element.attributes).find((a) => local(a) === name);
      if (attribute !== undefined) {
        out[key] = scalar(element.attributes[attribute]!, property, deref);
        usedAttributes.add(attribute);
      }
      continue;
    }
    const propertyTypes = typesOf(property, deref);
    if (propertyTypes.includes('array')) {
      const s = deref(property);
      const items = isObj(s) ? s['items'] : undefined;
      const itemName = xmlOf(items, deref).name ?? key;
      let elements: XmlElement[];
      if (xml.wrapped === true) {
        const wrapper = element.children.find((c) => !used.has(c) && local(c.name) === name);
        if (wrapper === undefined) continue;
        used.add(wrapper);
        elements = wrapper.children;
      } else {
        elements = element.children.filter((c) => !used.has(c) && local(c.name) === itemName);
        if (elements.length === 0) continue;
      }
      for (const e of elements) used.add(e);
      out[key] = elements.map((e) => read(e, items, deref, depth + 1));
      continue;
    }
    const child = element.children.find((c) => !used.has(c) && local(c.name) === name);
    if (child === undefined) continue;
    used.add(child);
    out[key] = read(child, property, deref, depth + 1);
  }
  for (const [attribute, value] of Object.entries(element.attributes))
    if (!usedAttributes.has(attribute) && !attribute.startsWith('xmlns')) out[local(attribute)] ??= value;
  for (const child of element.children) {
    if (used.has(child)) continue;
    const key = local(child.name);
    const value = generic(child);
    const existing = out[key];
    out[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}

/** The value an XML document is, read by its schema. */
export function readXml(text: string, schema: Json | undefined, deref: Deref): Json {
  return read(parseXml(text), schema, deref, 0);
}
