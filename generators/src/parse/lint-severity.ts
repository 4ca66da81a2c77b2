/**
 * Which lint problems refuse a document and which only warn (D116 default lint stops only on structural errors; D205 unknown 3.1 schema keywords are warnings; D405 struct errors inside extensions are warnings; D407 unknown root fields are warnings; D408 3.0 server default outside its enum is a warning; D430 wrongly typed value keywords and refused defaults left out with a warning): Redocly's findings
 * re-graded by what they mean for generation.
 */
import type { NormalizedProblem } from '@redocly/openapi-core';
import { isSchemaPosition, SIMPLE_SCHEMA_KEYWORDS } from '../normalize/schema-keywords.js';
import { pointerTokens } from '../util/json.js';
import type { LintProblem } from './openapi.js';

/**
 * Rules whose errors mean the document is not valid OpenAPI (or cannot be read): the only ones that stop generation
 * when the user gave no lint config (D116 default lint stops only on structural errors). Every other rule of the default set is style (`no-server-trailing-slash`
 * errors in Redocly's `minimal` set, and Stripe's and DigitalOcean's specs have one) and is reported as a warning.
 */
export const STRUCTURAL_LINT_RULES: ReadonlySet<string> = new Set([
  'struct',
  'no-unresolved-refs',
  'no-server-variables-empty-enum',
  'spec',
  'no-undefined-server-variable',
  'path-parameters-defined',
  'operation-operationId-unique',
  'no-identical-paths',
]);

/**
 * D205: in an OpenAPI 3.1 document a Schema Object is JSON Schema 2020-12, where a keyword the vocabulary does not know
 * is an annotation, valid and ignored (`nullable`, `x-nullable` without the `x-`, a vendor's own keyword). Redocly's
 * `struct` rule calls it "not expected here"; openapi-typescript's Redocly accepts it. Such a problem is not a reason to
 * refuse the document: it is reported as a warning. Recognised by the problem's JSON pointer: its parent is a schema
 * position (`.../schema`, `.../properties/<name>`, `.../items`, `.../allOf/<i>`, `#/components/schemas/<name>`...).
 */
export function isUnknownSchemaKeyword(problem: Pick<NormalizedProblem, 'ruleId' | 'message' | 'location'>): boolean {
  if (problem.ruleId !== 'struct' || !/^Property `[^`]+` is not expected here\.?$/.test(problem.message)) return false;
  const pointer = problem.location[0]?.pointer;
  if (pointer === undefined) return false;
  return isSchemaPosition(pointerTokens(pointer).slice(0, -1));
}

/**
 * D430: a schema keyword that constrains or annotates one value, written with the wrong JSON type (api.video's
 * `"pattern": 0`), carries no meaning a validator could apply; openapi-typescript generates from such a document.
 * Redocly's `struct` rule reports "Expected type `string` but got `integer`": a warning, and the keyword is left out
 * after bundling (normalize/schema-keywords.ts, with a warning naming its pointer). Keywords that shape the schema
 * (`type`, `items`, `allOf`...) stay errors.
 */
export function isMistypedSchemaKeyword(problem: Pick<NormalizedProblem, 'ruleId' | 'message' | 'location'>): boolean {
  if (problem.ruleId !== 'struct' || !/^Expected type `[^`]+`( \([a-z]+\))? but got `[^`]+`\.?$/.test(problem.message)) return false;
  const pointer = problem.location[0]?.pointer;
  if (pointer === undefined) return false;
  const tokens = pointerTokens(pointer);
  const keyword = tokens[tokens.length - 1];
  return keyword !== undefined && Object.hasOwn(SIMPLE_SCHEMA_KEYWORDS, keyword) && isSchemaPosition(tokens.slice(0, -1));
}

/** Maps whose keys are names the document chooses (a schema may be called `x-rate`): no extension sits among them. */
const NAME_MAPS = new Set([
  'paths',
  'schemas',
  'responses',
  'parameters',
  'examples',
  'requestBodies',
  'headers',
  'securitySchemes',
  'links',
  'callbacks',
  'pathItems',
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'content',
  'encoding',
  'variables',
]);

/**
 * D405: a `struct` error inside a specification extension is Redocly's reading of a vendor's extension, not a fault of
 * the OpenAPI document: `info.x-logo` written as a URL string where Redocly's own type wants `{url}` (1Password's
 * Events API), `"x-sdk-exclude": true` in `webhooks` or the `x-webhooks` map Redocly reads in 3.0 (apideck, steering
 * its SDK tools). OpenAPI leaves an extension's shape to whoever defines it and openapi-typescript skips them, as does
 * every reader here (the events model takes only object Path Items from `webhooks`): a warning, never a refusal. A key
 * of a name map (a schema called `x-rate`) is a name, not an extension.
 */
export function isExtensionShape(problem: Pick<NormalizedProblem, 'ruleId' | 'location'>): boolean {
  const pointer = problem.location[0]?.pointer;
  if (problem.ruleId !== 'struct' || pointer === undefined) return false;
  const tokens = pointer.replace(/^#\/?/, '').split('/');
  return tokens.some((token, i) => token.startsWith('x-') && (i === 0 || !NAME_MAPS.has(tokens[i - 1]!)));
}

/**
 * D407: a field OpenAPI does not define where no reader looks for one: at the document's root (Google Cloud Build's
 * `"source": {...}`, left over from the document's conversion) and in a Discriminator Object (Mailchimp's
 * `discriminator: {propertyName, type}`; the generators read `propertyName` and `mapping` only). openapi-typescript
 * ignores both. A warning naming it, never a refusal; an unknown field anywhere else is still an error.
 */
export function isUnknownRootField(problem: Pick<NormalizedProblem, 'ruleId' | 'message' | 'location'>): boolean {
  const pointer = problem.location[0]?.pointer;
  return (
    problem.ruleId === 'struct' &&
    /^Property `[^`]+` is not expected here\.?$/.test(problem.message) &&
    pointer !== undefined &&
    (/^#\/[^/]+$/.test(pointer) || /\/discriminator\/[^/]+$/.test(pointer))
  );
}

/**
 * D408: a server variable whose `default` is not among its `enum` (VTEX's template: `"default": "{environment}"`). OpenAPI
 * 3.0 says the default SHOULD be one of them (a warning); 3.1 says MUST, so there it stays an error. An empty enum
 * (the rule's other finding) is an error in both.
 */
export function isServerDefaultOutsideEnum(problem: Pick<NormalizedProblem, 'ruleId' | 'message'>): boolean {
  return problem.ruleId === 'no-server-variables-empty-enum' && /must include default/i.test(problem.message);
}

/** A style error of the default rule set becomes a warning (D116 default lint stops only on structural errors); with the user's own config every error stays one. */
export function demoteStyleErrors(problems: LintProblem[], userConfig: boolean): LintProblem[] {
  if (userConfig) return problems;
  return problems.map((p) => (p.severity === 'error' && !STRUCTURAL_LINT_RULES.has(p.ruleId) ? { ...p, severity: 'warn' } : p));
}
