/**
 * The probe reads answers with a JSON Schema 2020-12 validator (SpecProbe). An OpenAPI 3.0 document's schemas are
 * draft-4 style: `exclusiveMaximum: true` qualifying `maximum` (which 2020-12 refuses to compile) and `nullable: true`
 * (which 2020-12 ignores, so a `null` the spec allows would read as a violation). This copy of the document says the
 * same in 2020-12 terms, as the scaffold's own validators do (generators' `numericExclusiveBounds`), before probing.
 * The probe reads this copy; the scaffold is generated from the document as the directory has it.
 */
import { numericExclusiveBounds } from '../../generators/src/emit/ajv-standalone.js';
import { normalizePatterns } from '../../generators/src/normalize/patterns.js';
import { dropMistypedKeywords } from '../../generators/src/normalize/schema-keywords.js';
import type { Json, JsonObject } from '../../packages/contract-tests/src/spec-check/samples.js';
import { isObj } from '../../generators/src/util/json.js';

function convert(node: Json): Json {
  if (Array.isArray(node)) return node.map(convert);
  if (!isObj(node)) return node;
  let out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) out[key] = convert(value);
  out = numericExclusiveBounds(out) as JsonObject;
  if (out['nullable'] === true && typeof out['type'] === 'string') {
    out['type'] = [out['type'], 'null'];
    if (Array.isArray(out['enum']) && !out['enum'].includes(null)) out['enum'] = [...out['enum'], null];
  }
  if (typeof out['nullable'] === 'boolean') delete out['nullable'];
  // `$id` and `$schema` are no keywords of a 3.0 Schema Object (readers ignore them): Akeneo's schemas repeat
  // `"$id": "https://example.com/product"`, which a 2020-12 validator reads as one id for several schemas and refuses
  if (typeof out['$id'] === 'string') delete out['$id'];
  if (typeof out['$schema'] === 'string') delete out['$schema'];
  return out;
}

/**
 * The document with its 3.0 schema keywords in 2020-12 form, and its patterns and keywords as the scaffold reads them
 * (`u`-valid: generators' `normalizePatterns`, D60, D206, the probe's Ajv compiles patterns with the `u` flag; wrongly
 * typed keywords left out, D430).
 */
export function as2020(document: JsonObject): JsonObject {
  // a wrongly typed value keyword (`"pattern": 0`) is left out, as generation leaves it out of the scaffold's (D430 wrongly typed value keywords and refused defaults left out with a warning)
  const kept = dropMistypedKeywords(document).document;
  const converted = String(kept['openapi'] ?? '').startsWith('3.0') ? (convert(kept) as JsonObject) : kept;
  try {
    return normalizePatterns(converted, 'openapi.json').document;
  } catch {
    return converted;
  }
}
