/**
 * Shared by the emitters that precompile Ajv validators into standalone ESM code (webhook events, server request
 * validation): schema rewriting into one `$defs` root, the Ajv instance for the document's dialect, format tables and
 * the standalone module text. Nothing here depends on a particular emitter.
 */
import Ajv2020 from 'ajv/dist/2020.js';
import AjvDraft7 from 'ajv';
import standaloneCode from 'ajv/dist/standalone/index.js';
import type { Options as AjvOptions } from 'ajv';
import { UnsupportedSpecError } from '../parse/refusal.js';
import { sortedEntries } from '../util/sorted.js';
import { isObj } from '../util/json.js';
export { isObj } from '../util/json.js';

type Obj = Record<string, unknown>;

export type StandaloneAjv = InstanceType<typeof Ajv2020.default> | InstanceType<typeof AjvDraft7.default>;

const DEFS_PREFIX = '#/components/schemas/';
/** Annotation keywords Ajv does not need (dropped so the generated code never depends on them). */
const DROPPED_KEYWORDS = new Set(['discriminator', 'xml', 'externalDocs', 'example', 'examples']);

/**
 * OpenAPI 3.0's `exclusiveMinimum: true` / `exclusiveMaximum: true` (booleans qualifying `minimum` / `maximum`, JSON
 * Schema draft 4) as the numbers draft-07 and 2020-12 take; `false` says nothing. A 3.1 document has numbers already
 * and passes unchanged.
 */
export function numericExclusiveBounds(schema: Obj): Obj {
  if (typeof schema.exclusiveMinimum !== 'boolean' && typeof schema.exclusiveMaximum !== 'boolean') return schema;
  const out: Obj = { ...schema };
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof out[exclusive] !== 'boolean') continue;
    if (out[exclusive] === true && typeof out[bound] === 'number') {
      out[exclusive] = out[bound];
      delete out[bound];
    } else {
      delete out[exclusive];
    }
  }
  return out;
}

/**
 * Rewrites `#/components/schemas/X` refs to `<rootId>#/$defs/X`, drops OpenAPI-only annotation keywords and turns
 * OpenAPI 3.0 boolean exclusive bounds into numbers.
 */
export function toAjvSchema(schema: unknown, rootId: string, alsoDrop: ReadonlySet<string> = new Set()): unknown {
  if (Array.isArray(schema)) return schema.map((s) => toAjvSchema(s, rootId, alsoDrop));
  if (!isObj(schema)) return schema;
  const out: Obj = {};
  for (const [key, value] of sortedEntries(numericExclusiveBounds(schema))) {
    if (key === 'nullable' && schema.type === undefined) {
      // OpenAPI 3.0 `nullable` without `type` constrains nothing, and Ajv refuses to compile it
      continue;
    } else if (key === '$ref' && typeof value === 'string' && value.startsWith(DEFS_PREFIX)) {
      out.$ref = `${rootId}#/$defs/${value.slice(DEFS_PREFIX.length)}`;
    } else if (key === 'enum' && Array.isArray(value) && value.length === 0) {
      // D198: JSON Schema allows an empty enum (it only SHOULD have an element): no value is one of nothing, as
      // openapi-typescript's `never` says. Ajv refuses to compile `enum: []`; `not: {}` means the same and compiles.
      // (A `not` beside it changes nothing: the schema accepts nothing either way.)
      out.not = {};
    } else if (key === 'not' && Array.isArray(schema.enum) && schema.enum.length === 0) {
      continue;
    } else if (DROPPED_KEYWORDS.has(key) || alsoDrop.has(key) || key.startsWith('x-')) {
      continue;
    } else if (key === 'properties' && isObj(value)) {
      // property names are data, not keywords: never dropped
      const props: Obj = {};
      for (const [name, sub] of sortedEntries(value)) props[name] = toAjvSchema(sub, rootId, alsoDrop);
      out[key] = props;
    } else {
      out[key] = toAjvSchema(value, rootId, alsoDrop);
    }
  }
  return out;
}

/**
 * Ajv for the document's dialect (OpenAPI 3.1 = JSON Schema 2020-12, else draft-07), set up for standalone ESM code.
 * `inlineRefs: false` (D155 validators compiled with inlineRefs off): every `$ref`'d schema becomes one function that each referrer calls, instead of a copy
 * of its code inlined at every use (GitHub's `simple-user` was inlined hundreds of times, most of the validators' size
 * and of generation's CPU: docs/benchmarks.md#generated-validator-size). Results, error paths, defaults and coercion
 * are the same either way.
 */
export function createStandaloneAjv(openapiVersion: string, options: AjvOptions): StandaloneAjv {
  const all: AjvOptions = { inlineRefs: false, ...options, code: { source: true, esm: true, lines: true, ...options.code }, logger: false };
  return openapiVersion.startsWith('3.1') ? new Ajv2020.default(all) : new AjvDraft7.default(all);
}

/** What to do with a format that is not a regular expression (a function, or a `{ type: 'number', validate }` object). */
export type FunctionFormatMode = 'accept' | 'runtime';

/**
 * Registers a format table. Regular expressions (and `{ validate: RegExp }` definitions) are inlined into the
 * generated code. Other definitions are either accepted as-is (`'accept'`: `true`) or registered unchanged
 * (`'runtime'`: the generated code reads them from the `formats` object the module imports at run time, which must
 * be the same table).
 */
export function addFormats(ajv: StandaloneAjv, table: Record<string, unknown>, mode: FunctionFormatMode): void {
  for (const [name, format] of sortedEntries(table)) {
    if (format instanceof RegExp) ajv.addFormat(name, format);
    else if (isObj(format) && format.validate instanceof RegExp) ajv.addFormat(name, format.validate);
    else if (format === true || mode === 'accept')
      ajv.addFormat(name, true); // numeric ranges, regex, byte: accepted as-is
    else ajv.addFormat(name, format as Parameters<StandaloneAjv['addFormat']>[1]);
  }
}

/**
 * Standalone ESM code exporting `exports` (name -> schema id/ref). Ajv runtime helpers (`require("ajv/dist/runtime/...")`)
 * are resolved through `createRequire`, and the prelude lines (or what `prelude(code)` returns for the generated code) are
 * inserted after `"use strict";`. LF line endings.
 */
export function standaloneModule(
  ajv: StandaloneAjv,
  exports: Record<string, string>,
  prelude: readonly string[] | ((code: string) => readonly string[]) = [],
): string {
  // Several names for one schema (operations sharing a validator, D155): Ajv's standaloneCode would emit the shared
  // function once per name (a duplicate declaration), so each schema is exported once and the other names alias it.
  const firstName = new Map<string, string>();
  const aliases: string[] = [];
  for (const [name, ref] of Object.entries(exports)) {
    const first = firstName.get(ref);
    if (first === undefined) firstName.set(ref, name);
    else aliases.push(`export const ${name} = ${first};`);
  }
  let code = standaloneCode.default(ajv, Object.fromEntries([...firstName].map(([ref, name]) => [name, ref])));
  if (aliases.length > 0) code = `${code.replace(/\s+$/, '')}\n${aliases.join('\n')}\n`;
  const preludeLines = typeof prelude === 'function' ? prelude(code) : prelude;
  const needsRequire = [code, ...preludeLines].some((text) => /require\("[^"]+"\)/.test(text));
  const lines: string[] = [];
  if (needsRequire) {
    // Ajv runtime helpers (deep equality for object enums/const, unicode length): resolved through `ajv`.
    lines.push('import { createRequire } from "node:module";', 'const require = createRequire(import.meta.url);');
  }
  lines.push(...preludeLines);
  if (lines.length > 0) code = code.replace(/^"use strict";/, `"use strict";\n${lines.join('\n')}`);
  return code.replace(/\r\n?/g, '\n');
}

/** A schema the precompiled validators are built from, and where the spec declares it. */
export interface LocatedSchema {
  /** `<rootId>#/$defs/<key>` */
  ref: string;
  /** JSON pointer in the bundled document (a component schema, or the operation / event it belongs to). */
  pointer: string;
}

/**
 * Compiles every ref (each once) and returns those Ajv cannot compile, with its reason (D198: tolerant compilation).
 * A failed compilation leaves the instance as it was (Ajv drops a schema whose compilation throws), so the others
 * compile and the standalone module is written for them alone.
 */
export function compileEach(ajv: StandaloneAjv, refs: readonly string[]): Map<string, string> {
  const failed = new Map<string, string>();
  for (const ref of new Set(refs)) {
    try {
      ajv.getSchema(ref);
    } catch (error) {
      failed.set(ref, (error as Error).message);
    }
  }
  return failed;
}

/**
 * Runs `compile`; when Ajv refuses a schema (a keyword used in a way it cannot compile), finds the first schema of
 * `candidates` that fails in a fresh instance (`fresh()`, components before operations, so the pointer names the
 * schema at fault rather than the first operation using it) and refuses with its location instead of Ajv's stack trace.
 */
export function compileOrRefuse<T>(
  compile: () => T,
  fresh: () => StandaloneAjv,
  candidates: readonly LocatedSchema[],
  file: string,
  what: string,
): T {
  try {
    return compile();
  } catch (error) {
    const reason = (error as Error).message;
    let pointer = '';
    // One fresh instance: schemas that compile do not change how a later one fails.
    const probe = fresh();
    for (const candidate of candidates) {
      try {
        probe.getSchema(candidate.ref);
      } catch {
        pointer = candidate.pointer;
        break;
      }
    }
    throw new UnsupportedSpecError(
      file,
      pointer,
      `Ajv cannot compile this schema into ${what}: ${reason}`,
      "change the schema so it is valid JSON Schema for the document's OpenAPI version (3.0: draft 4 style with nullable; 3.1: 2020-12), or remove the construct Ajv names.",
    );
  }
}

/**
 * The end of a JavaScript string literal opened at `start` (the index of its opening `"`): the index after its closing
 * quote. Ajv writes every string of its code with JSON.stringify, so `"` and `\` escapes are the only ones to skip.
 */
function stringEnd(code: string, start: number): number {
  let i = start + 1;
  while (i < code.length && code[i] !== '"') i += code[i] === '\\' ? 2 : 1;
  return i + 1;
}

/**
 * The top-level members of an object literal `{...}` as Ajv writes it (`name:value`, or a shorthand `name`), or
 * undefined when it is not one (strings inside values are skipped, never split).
 */
function objectMembers(object: string): { name: string; value: string }[] | undefined {
  if (!object.startsWith('{') || !object.endsWith('}')) return undefined;
  const parts: string[] = [];
  let depth = 0;
  let from = 1;
  for (let i = 1; i < object.length - 1; i++) {
    const c = object[i];
    if (c === '"') i = stringEnd(object, i) - 1;
    else if (c === '{' || c === '[' || c === '(') depth++;
    else if (c === '}' || c === ']' || c === ')') depth--;
    else if (depth === 0 && c === ',') {
      parts.push(object.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(object.slice(from, object.length - 1));
  const members: { name: string; value: string }[] = [];
  for (const part of parts) {
    const match = /^([A-Za-z_$][\w$]*)(?::([\s\S]*))?$/.exec(part);
    if (match === null) return undefined;
    members.push({ name: match[1]!, value: match[2] ?? match[1]! });
  }
  return members;
}

/**
 * The helpers the compacted code calls (D190 Ajv standalone code compacted), defined once at the end of the module (function declarations are
 * hoisted). `$` is in no name Ajv generates.
 */
const ERROR_HELPERS = [
  '/** D190: push one error ({ instancePath, keyword, params, message }, as Ajv builds it) onto the errors so far. */',
  'function $e(v, instancePath, keyword, params, message) { const e = { instancePath, keyword, params, message }; if (v === null) return [e]; v.push(e); return v; }',
  '/** D190: the error of the `type` keyword, as Ajv words it. */',
  'function $t(v, instancePath, type) { return $e(v, instancePath, "type", { type }, "must be " + type); }',
];

/** One error push, as short as it goes: `$t(...)` for Ajv's `type` error, `$e(...)` otherwise; undefined: kept. */
function errorPush(object: string): string | undefined {
  const members = objectMembers(object);
  if (members === undefined || members.map((m) => m.name).join() !== 'instancePath,keyword,params,message') return undefined;
  const [instancePath, keyword, params, message] = members.map((m) => m.value) as [string, string, string, string];
  const type = /^\{type: ("[a-z]+")\}$/.exec(params)?.[1];
  if (keyword === '"type"' && type !== undefined && message === `"must be ${type.slice(1)}`) {
    return `vErrors = $t(vErrors, ${instancePath}, ${type});`;
  }
  return `vErrors = $e(vErrors, ${instancePath}, ${keyword}, ${params}, ${message});`;
}

/** `{...}` without its top-level `,<key>:<string literal>` (strings inside values are skipped, never matched). */
function withoutStringProperty(object: string, key: string): string {
  const marker = `,${key}:"`;
  let depth = 0;
  for (let i = 0; i < object.length; i++) {
    const c = object[i];
    if (c === '"') {
      i = stringEnd(object, i) - 1;
    } else if (c === '{' || c === '[' || c === '(') {
      depth++;
    } else if (c === '}' || c === ']' || c === ')') {
      depth--;
    } else if (depth === 1 && c === ',' && object.startsWith(marker, i)) {
      const end = stringEnd(object, i + marker.length - 1);
      return object.slice(0, i) + object.slice(end);
    }
  }
  return object;
}

/** Ajv's `addError` with allErrors: the error object in a const, pushed onto `vErrors` (created if null), counted. */
const ERROR_PUSH =
  /^const (err\d+) = (\{instancePath.*\});\nif\(vErrors === null\)\{\nvErrors = \[\1\];\n\}\nelse \{\nvErrors\.push\(\1\);\n\}\nerrors\+\+;$/gm;

/**
 * D190: Ajv standalone code made shorter without changing what it computes (docs/benchmarks.md#generated-validator-size).
 * Three rewrites of exact shapes Ajv 8 emits (anything else is left as it is):
 * - each error push (`const errN = {...}; if(vErrors === null){ vErrors = [errN]; } else { vErrors.push(errN); }
 *   errors++;`, seven lines) becomes one call and `errors++;`: `vErrors = $e(vErrors, instancePath, keyword, params,
 *   message);`, or `vErrors = $t(vErrors, instancePath, "string");` for the `type` keyword's error (its message is
 *   "must be " + the type), both building the very object Ajv would, without `schemaPath`;
 * - so `dropSchemaPath` says the error objects lose `schemaPath` (the request-validation runtime reads instancePath,
 *   keyword, params and message only: the 400 `details` are built from those); without it the push is
 *   `(vErrors ??= []).push({...});`;
 * - `const schemaN = {...};` values that no code reads (Ajv keeps the root schema of every compiled function in its
 *   scope, used or not) are left out.
 */
export function compactStandaloneCode(code: string, options: { dropSchemaPath: boolean }): string {
  // Helpers only where no name of the code could collide with them (Ajv never writes `$`; checked all the same).
  const helpers = options.dropSchemaPath && !/\$[et]\b/.test(code);
  let helped = false;
  let out = code.replace(ERROR_PUSH, (_match, _name: string, object: string) => {
    const error = options.dropSchemaPath ? withoutStringProperty(object, 'schemaPath') : object;
    const call = helpers ? errorPush(error) : undefined;
    if (call !== undefined) helped = true;
    return `${call ?? `(vErrors ??= []).push(${error});`}\nerrors++;`;
  });
  const uses = new Map<string, number>();
  for (const [name] of out.matchAll(/\bschema\d+\b/g)) uses.set(name, (uses.get(name) ?? 0) + 1);
  out = out.replace(/^const (schema\d+) = .*;\n/gm, (line, name: string) => (uses.get(name) === 1 ? '' : line));
  if (helped) out = `${out.replace(/\s+$/, '')}\n${ERROR_HELPERS.join('\n')}\n`;
  return out;
}
