/**
 * Regular expressions of the spec (`pattern`, `patternProperties` keys) made valid for the `u` flag, once, before
 * anything reads them (decision D60).
 *
 * Every consumer compiles patterns with `u`: the generated request and webhook validators (Ajv's default
 * `unicodeRegExp`), the development response validator (express-openapi-validator) and the contract test tooling
 * (Ajv, fast-check). Real-world specs carry patterns written for JavaScript's legacy (Annex B) syntax, e.g. PayPal's
 * RFC 5322 e-mail pattern with a lone `]`, or `\!` identity escapes, which `u` refuses ("Lone quantifier brackets",
 * "Invalid escape"). Such a pattern is parsed in Annex B mode by @eslint-community/regexpp and written back in the
 * syntax `u` accepts, meaning the same thing: a lone `]`, `{` or `}` and identity escapes become escaped literals,
 * `[\w-.]` gets its `-` escaped, quantified lookaheads are wrapped in a group. The one difference left is inherent to
 * `u`: `.` and negated classes match an astral character (an emoji) as one character instead of two UTF-16 halves.
 * A pattern that is not a regular expression in either syntax (e.g. `(?i)` inline flags) is left out with a warning naming
 * its location (D206 unsupported patterns dropped with a warning); a `patternProperties` key that is none is refused with its location.
 */
import { RegExpParser, type AST } from '@eslint-community/regexpp';
import { pointerToken, UnsupportedSpecError } from '../parse/refusal.js';
import { isObj } from '../util/json.js';

export type PatternOutcome =
  /** Valid with `u`: used unchanged. */
  | { kind: 'unicode'; pattern: string }
  /** Valid only without `u`: rewritten in `u` syntax with the same meaning. */
  | { kind: 'translated'; pattern: string }
  /** Not a regular expression in either syntax. */
  | { kind: 'invalid'; reason: string };

/** Node 20's syntax: ES2022 (no modifiers, no duplicate named groups). */
const parser = new RegExpParser({ ecmaVersion: 2022, strict: false });

function compiles(pattern: string, flags: string): string | undefined {
  try {
    new RegExp(pattern, flags);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The pattern in the syntax the `u` flag accepts (see the module comment), or why it cannot be one. */
export function unicodePattern(pattern: string): PatternOutcome {
  if (compiles(pattern, 'u') === undefined) return { kind: 'unicode', pattern };
  const legacyError = compiles(pattern, '');
  if (legacyError !== undefined) return { kind: 'invalid', reason: legacyError };
  let translated: string;
  try {
    translated = writePattern(parser.parsePattern(pattern, 0, pattern.length, { unicode: false }));
  } catch (error) {
    return { kind: 'invalid', reason: (error as Error).message };
  }
  const unicodeError = compiles(translated, 'u');
  if (unicodeError !== undefined)
    return {
      kind: 'invalid',
      reason: `valid only without the u flag, and its rewrite ${JSON.stringify(translated)} is refused: ${unicodeError}`,
    };
  return { kind: 'translated', pattern: translated };
}

// ---------------------------------------------------------------------------------------------------------------
// Writing the Annex B AST back in `u` syntax

/** Characters `u` requires escaped outside a class (the syntax characters). */
const SYNTAX = new Set('^$\\.*+?()[]{}|/');
/** Characters escaped inside a class. */
const CLASS_SYNTAX = new Set('\\]-^[');

function hex4(code: number): string {
  return `\\u${code.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** A literal code point (or a UTF-16 half, which legacy syntax yields for astral characters). */
function writeCharacter(code: number, inClass: boolean): string {
  const ch = String.fromCodePoint(code);
  if ((inClass ? CLASS_SYNTAX : SYNTAX).has(ch)) return `\\${ch}`;
  // Controls, separators and lone surrogates are written as escapes so the pattern stays printable.
  if (code < 0x20 || (code >= 0x7f && code <= 0xa0) || code === 0x2028 || code === 0x2029 || (code >= 0xd800 && code <= 0xdfff))
    return hex4(code);
  if (code > 0xffff) return `\\u{${code.toString(16).toUpperCase()}}`;
  return ch;
}

function writeAlternatives(alternatives: readonly AST.Alternative[]): string {
  return alternatives.map((a) => a.elements.map(writeElement).join('')).join('|');
}

function writeClassElement(element: AST.CharacterClassElement): string {
  switch (element.type) {
    case 'Character':
      return writeCharacter(element.value, true);
    case 'CharacterClassRange':
      return `${writeCharacter(element.min.value, true)}-${writeCharacter(element.max.value, true)}`;
    case 'CharacterSet':
      return element.raw;
    default:
      throw new Error(`${element.raw}: class syntax of the v flag cannot appear in a legacy pattern`);
  }
}

function writeQuantifier(q: AST.Quantifier): string {
  // Annex B lets a lookahead be quantified; `u` needs it in a group first.
  const inner = q.element.type === 'Assertion' ? `(?:${writeElement(q.element)})` : writeElement(q.element);
  let suffix: string;
  if (q.min === 0 && q.max === Infinity) suffix = '*';
  else if (q.min === 1 && q.max === Infinity) suffix = '+';
  else if (q.min === 0 && q.max === 1) suffix = '?';
  else if (q.max === Infinity) suffix = `{${q.min},}`;
  else if (q.min === q.max) suffix = `{${q.min}}`;
  else suffix = `{${q.min},${q.max}}`;
  return `${inner}${suffix}${q.greedy ? '' : '?'}`;
}

function writeElement(node: AST.Element | AST.QuantifiableElement): string {
  switch (node.type) {
    case 'Character':
      return writeCharacter(node.value, false);
    case 'CharacterSet':
      return node.raw; // `.`, `\d`, `\D`, `\s`, `\S`, `\w`, `\W`: the same spelling in both syntaxes
    case 'CharacterClass':
      return `[${node.negate ? '^' : ''}${node.elements.map(writeClassElement).join('')}]`;
    case 'Group':
      return `(?:${writeAlternatives(node.alternatives)})`;
    case 'CapturingGroup':
      return `(${node.name === null ? '' : `?<${node.name}>`}${writeAlternatives(node.alternatives)})`;
    case 'Quantifier':
      return writeQuantifier(node);
    case 'Backreference':
      return typeof node.ref === 'number' ? `\\${node.ref}` : `\\k<${node.ref}>`;
    case 'Assertion':
      switch (node.kind) {
        case 'start':
          return '^';
        case 'end':
          return '$';
        case 'word':
          return node.negate ? '\\B' : '\\b';
        default:
          return `(?${node.kind === 'lookbehind' ? '<' : ''}${node.negate ? '!' : '='}${writeAlternatives(node.alternatives)})`;
      }
    default:
      throw new Error(`${node.raw}: class syntax of the v flag cannot appear in a legacy pattern`);
  }
}

function writePattern(pattern: AST.Pattern): string {
  return writeAlternatives(pattern.alternatives);
}

// ---------------------------------------------------------------------------------------------------------------
// Applying it to a document

/** The usual mistakes of patterns written for other engines (PCRE, Java), named in the refusal's fix. */
function fixHint(pattern: string, reason: string): string {
  if (/\(\?[a-zA-Z]+\)/.test(pattern)) return ' (inline flags such as (?i) do not exist there: spell out [Aa], or list both spellings)';
  if (/Range out of order/i.test(reason))
    return ' (a - between two characters of a class is a range: escape it as \\- or put it last in the class)';
  return '';
}

/** A pattern of the document that was rewritten. */
export interface TranslatedPattern {
  pointer: string;
  from: string;
  to: string;
}

type Obj = Record<string, unknown>;

/** The keys from the document's root to a node (`key` of the root: the base pointer, e.g. `#`). */
interface Trail {
  parent: Trail | undefined;
  key: string;
}

function pointerOf(trail: Trail): string {
  const keys: string[] = [];
  for (let t: Trail | undefined = trail; t.parent !== undefined; t = t.parent) keys.push(pointerToken(t.key));
  let root: Trail = trail;
  while (root.parent !== undefined) root = root.parent;
  return [root.key, ...keys.reverse()].join('/');
}

/**
 * Maps whose keys are names chosen by the author, not keywords: a property called `default` or `example` is a
 * schema, a response called `default` is a response.
 */
const NAME_MAPS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
  'schemas',
  'responses',
  'parameters',
  'requestBodies',
  'headers',
  'callbacks',
  'pathItems',
  'paths',
  'webhooks',
  'content',
  'encoding',
  'links',
  'securitySchemes',
  'messages',
  'channels',
  'operations',
]);
/** Members holding data, not schemas: an example object's `pattern` field is not a regular expression. */
const DATA_KEYS = new Set(['example', 'examples', 'default', 'enum', 'const']);

/** A `pattern` that is no regular expression, left out of the document (D206 unsupported patterns dropped with a warning). */
export interface DroppedPattern {
  pointer: string;
  pattern: string;
  problem: string;
  fix: string;
}

/**
 * Every `pattern` and `patternProperties` key of the document in `u` syntax. Returns the document itself when every
 * pattern was valid already, else a copy with the rewritten ones (listed in `translated`). A `pattern` that is not a
 * regular expression at all is left out (listed in `dropped`, D206): JSON Schema only says it SHOULD be an ECMA-262
 * expression, so the document is valid, and what cannot be checked is not checked, never a refusal of the document.
 * A `patternProperties` key that is none is refused (UnsupportedSpecError naming `file` and its pointer): leaving it
 * out would change which properties the object accepts.
 */
export function normalizePatterns<T>(
  document: T,
  file: string,
  base = '#',
): { document: T; translated: TranslatedPattern[]; dropped: DroppedPattern[] } {
  const translated: TranslatedPattern[] = [];
  const dropped: DroppedPattern[] = [];
  const problemOf = (pattern: string, reason: string) =>
    `pattern ${JSON.stringify(pattern)} is not an ECMA-262 regular expression, with or without the u flag (${reason}).`;
  const fixOf = (pattern: string, reason: string) =>
    `write it in JavaScript regular expression syntax${fixHint(pattern, reason)}, or remove it.`;
  const refuse = (pointer: string, pattern: string, reason: string): never => {
    throw new UnsupportedSpecError(file, pointer, problemOf(pattern, reason), fixOf(pattern, reason));
  };
  /** The pattern in `u` syntax; undefined for a `pattern` keyword that is no regular expression (dropped). */
  const fix = (at: Trail, pattern: string, keyword: boolean): string | undefined => {
    const outcome = unicodePattern(pattern);
    if (outcome.kind === 'invalid') {
      if (!keyword) return refuse(pointerOf(at), pattern, outcome.reason);
      dropped.push({ pointer: pointerOf(at), pattern, problem: problemOf(pattern, outcome.reason), fix: fixOf(pattern, outcome.reason) });
      return undefined;
    }
    if (outcome.kind === 'translated') translated.push({ pointer: pointerOf(at), from: pattern, to: outcome.pattern });
    return outcome.pattern;
  };
  // D164: the pointer of a node is written only for a pattern that is reported (a trail of keys until then).
  const visit = (node: unknown, trail: Trail, namesAreKeys: boolean, depth: number): unknown => {
    if (depth > 512) return node;
    if (Array.isArray(node)) {
      let copy: unknown[] | undefined;
      node.forEach((item, i) => {
        const next = visit(item, { parent: trail, key: String(i) }, false, depth + 1);
        if (next !== item) (copy ??= [...node])[i] = next;
      });
      return copy ?? node;
    }
    if (!isObj(node)) return node;
    let copy: Obj | undefined;
    for (const key in node) {
      if (!Object.hasOwn(node, key)) continue;
      const value = node[key];
      if (namesAreKeys) {
        const next = visit(value, { parent: trail, key }, false, depth + 1);
        if (next !== value) (copy ??= { ...node })[key] = next;
        continue;
      }
      if (key.startsWith('x-') || DATA_KEYS.has(key)) continue;
      const at: Trail = { parent: trail, key };
      if (key === 'pattern' && typeof value === 'string') {
        const next = fix(at, value, true);
        if (next === undefined) delete (copy ??= { ...node })[key];
        else if (next !== value) (copy ??= { ...node })[key] = next;
        continue;
      }
      if (value === null || typeof value !== 'object') continue;
      let next = visit(value, at, NAME_MAPS.has(key), depth + 1);
      if (key === 'patternProperties' && isObj(next)) {
        const keys = Object.keys(next);
        const fixed = keys.map((k) => fix({ parent: at, key: k }, k, false)!);
        if (fixed.some((k, i) => k !== keys[i])) next = Object.fromEntries(fixed.map((k, i) => [k, (next as Obj)[keys[i]!]]));
      }
      if (next !== value) (copy ??= { ...node })[key] = next;
    }
    return copy ?? node;
  };
  return { document: visit(document, { parent: undefined, key: base }, false, 0) as T, translated, dropped };
}
