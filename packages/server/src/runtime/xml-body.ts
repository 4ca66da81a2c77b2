/**
 * An error body written as XML (D458 error answers in binary, image and XML media types): the value the error filler
 * wrote for a schema, as the schema's XML Object (OpenAPI 3.x) says it is written: the root element named by the
 * schema's `xml.name`, else by its name under `components/schemas`, else `error`; each property an element of its
 * name (or `xml.name`), an attribute where `xml.attribute` says so; a list one element per item, named by the items'
 * `xml.name` (else the property's), inside an element of the property's name when `xml.wrapped`; `xml.prefix` and
 * `xml.namespace` as written. Scalars are their text; null and absent values are left out.
 */
import { unescapePointerToken } from '@paygate/contract/json';
import { isObj, type SchemaReader } from './error-fill.js';

interface XmlObject {
  name?: string;
  namespace?: string;
  prefix?: string;
  attribute?: boolean;
  wrapped?: boolean;
}

/** The XML Object of a schema: on the node as written (a property's own), else on what it refers to. */
function xmlOf(reader: SchemaReader, schema: unknown): XmlObject {
  const own = isObj(schema) && isObj(schema.xml) ? schema.xml : undefined;
  const target = reader.deref(schema);
  const referred = isObj(target) && isObj(target.xml) ? target.xml : undefined;
  const xml = own ?? referred ?? {};
  return {
    ...(typeof xml.name === 'string' ? { name: xml.name } : {}),
    ...(typeof xml.namespace === 'string' ? { namespace: xml.namespace } : {}),
    ...(typeof xml.prefix === 'string' ? { prefix: xml.prefix } : {}),
    ...(xml.attribute === true ? { attribute: true } : {}),
    ...(xml.wrapped === true ? { wrapped: true } : {}),
  };
}

/** An XML name from any text: characters a name cannot hold become `_`. */
export function xmlName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9._:-]/g, '_');
  return /^[A-Za-z_:]/.test(cleaned) ? cleaned : `_${cleaned}`;
}

const escapeText = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttribute = (text: string): string => escapeText(text).replace(/"/g, '&quot;');

function scalarText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The schema of a property of an object schema (allOf merged), undefined when it declares none. */
function propertySchema(reader: SchemaReader, schema: unknown, name: string): unknown {
  const properties = reader.shape(schema).properties;
  return Object.hasOwn(properties, name) ? properties[name] : undefined;
}

function itemsOf(reader: SchemaReader, schema: unknown): unknown {
  const s = reader.deref(schema);
  return isObj(s) ? s.items : undefined;
}

/** The elements of one property's value (several for an unwrapped list, none for null). */
function elementsOf(reader: SchemaReader, schema: unknown, value: unknown, name: string, depth: number): string {
  if (value === null || value === undefined) return '';
  if (!Array.isArray(value)) return element(reader, schema, value, xmlOf(reader, schema).name ?? name, depth);
  const xml = xmlOf(reader, schema);
  const items = itemsOf(reader, schema);
  const itemName = xmlOf(reader, items).name ?? name;
  const inner = value.map((item) => elementsOf(reader, items, item, itemName, depth + 1)).join('');
  if (xml.wrapped !== true) return inner;
  return wrap(xml, xml.name ?? name, '', inner);
}

function wrap(xml: XmlObject, name: string, attributes: string, inner: string): string {
  const qualified = xmlName(xml.prefix === undefined ? name : `${xml.prefix}:${name}`);
  const ns =
    xml.namespace === undefined
      ? ''
      : ` xmlns${xml.prefix === undefined ? '' : `:${xmlName(xml.prefix)}`}="${escapeAttribute(xml.namespace)}"`;
  return inner === '' ? `<${qualified}${ns}${attributes}/>` : `<${qualified}${ns}${attributes}>${inner}</${qualified}>`;
}

function element(reader: SchemaReader, schema: unknown, value: unknown, name: string, depth: number): string {
  const xml = xmlOf(reader, schema);
  if (depth > 16) return wrap(xml, name, '', '');
  if (Array.isArray(value)) {
    // a list as the whole body: its items inside the root element
    const items = itemsOf(reader, schema);
    const itemName = xmlOf(reader, items).name ?? name;
    return wrap(xml, name, '', value.map((item) => elementsOf(reader, items, item, itemName, depth + 1)).join(''));
  }
  if (!isObj(value)) return wrap(xml, name, '', value === null || value === undefined ? '' : escapeText(scalarText(value)));
  let attributes = '';
  let children = '';
  for (const [key, child] of Object.entries(value)) {
    const property = propertySchema(reader, schema, key);
    const own = xmlOf(reader, property);
    if (own.attribute === true && !isObj(child) && !Array.isArray(child)) {
      if (child !== null && child !== undefined) attributes += ` ${xmlName(own.name ?? key)}="${escapeAttribute(scalarText(child))}"`;
      continue;
    }
    children += elementsOf(reader, property, child, key, depth + 1);
  }
  return wrap(xml, name, attributes, children);
}

/** The root element's name: the schema's `xml.name`, else its name under `components/schemas`, else `error`. */
export function rootName(reader: SchemaReader, schema: unknown): string {
  const own = xmlOf(reader, schema).name;
  if (own !== undefined) return own;
  const ref = isObj(schema) && typeof schema.$ref === 'string' ? schema.$ref : undefined;
  const named = ref?.match(/^#\/(?:components\/schemas|definitions)\/([^/]+)$/)?.[1];
  return named === undefined ? 'error' : unescapePointerToken(decodeURIComponent(named));
}

/** The XML document of a filled error body. */
export function xmlDocument(reader: SchemaReader, schema: unknown, value: unknown): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${element(reader, schema, value, rootName(reader, schema), 0)}`;
}
