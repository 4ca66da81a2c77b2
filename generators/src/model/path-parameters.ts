/**
 * Path template parameters the document does not declare (decision D201).
 *
 * OpenAPI: each template expression of a path MUST correspond to a path parameter of the path item or the operation.
 * The model types a forgotten one as a string (`declared: false`) so a document can still be generated, but under
 * `--lint strict` (the default) generation refuses it, naming the path, the parameter object to add, and
 * `--lint report` as the way to generate anyway. A template expression inside a query string written into the path
 * (`/search?q={q}`) gets the fix it needs instead: a query parameter.
 *
 * A query string written into the path whose every `{x}` is declared (as a query parameter, or as a path parameter as
 * some vendors write it) is generated with a warning (D410 every path template real specs use is routed): the server routes on the part before `?` and chooses by
 * the query keys, the client writes the query; openapi-typescript accepts such documents too. A `{x}` of that query
 * string declared nowhere is generated too, as a string read from the query, with a warning naming it (D411 an undeclared name in a query string written into a path is read from the query): the
 * template rule of OpenAPI is about path templates, and a query string is none.
 */
import { pointerToken, UnsupportedSpecError } from '../parse/refusal.js';
import type { ApiModel } from './types.js';

export interface UndeclaredPathParameter {
  operationId: string;
  method: string;
  path: string;
  name: string;
}

/** Every path parameter an operation's template names and neither it nor its path item declares, in model order. */
export function undeclaredPathParameters(model: Pick<ApiModel, 'operations'>): UndeclaredPathParameter[] {
  return model.operations.flatMap((op) =>
    op.parameters.path
      .filter((p) => !p.declared)
      .map((p) => ({ operationId: op.operationId, method: op.method, path: op.path, name: p.name })),
  );
}

/** Whether `{name}` sits in a query string written into the path template (after `?`, before any `#`). */
function inQueryString(path: string, name: string): boolean {
  const beforeHash = path.split('#', 1)[0]!;
  const question = beforeHash.indexOf('?');
  return question !== -1 && beforeHash.indexOf(`{${name}}`, question) !== -1;
}

/**
 * Refuses the first undeclared path template parameter (UnsupportedSpecError: file, pointer, problem, fix). A name in a
 * query string written into the path is not a path template expression (OpenAPI paths have no query part, so its rule
 * does not reach there): declared nowhere, it is generated as a string read from the query, with a warning (D411 an undeclared name in a query string written into a path is read from the query).
 */
export function refuseUndeclaredPathParameters(model: Pick<ApiModel, 'operations'>, file: string): void {
  const undeclared = undeclaredPathParameters(model).filter((u) => !inQueryString(u.path, u.name));
  const first = undeclared[0];
  if (first === undefined) return;
  const others = new Set(undeclared.map((u) => `${u.path} {${u.name}}`));
  others.delete(`${first.path} {${first.name}}`);
  const more =
    others.size === 0 ? '' : ` (and ${others.size} more: ${[...others].slice(0, 3).join(', ')}${others.size > 3 ? ', ...' : ''})`;
  const inQuery = first.path.indexOf('?') !== -1 && first.path.indexOf('?') < first.path.indexOf(`{${first.name}}`);
  const problem = inQuery
    ? `the path ${JSON.stringify(first.path)} holds a query string; its {${first.name}} is declared by no parameter of ${first.method.toUpperCase()} (neither in: query nor in: path), and OpenAPI paths have no query part${more}.`
    : `the path template names {${first.name}}, which no parameter of ${first.method.toUpperCase()} ${first.path} declares; OpenAPI requires every template expression to be a declared path parameter${more}.`;
  const fix = inQuery
    ? `declare \`${first.name}\` as a query parameter of ${first.method.toUpperCase()} ${first.path} ({ name: ${first.name}, in: query, schema: { type: string } }; the query string may stay in the path, D410, though OpenAPI paths have none); or generate with --lint report to accept the document as it is (the name is then a path parameter typed as a string).`
    : `declare it in the path item's parameters: { name: ${first.name}, in: path, required: true, schema: { type: string } } (or in each operation's); or generate with --lint report to accept the document as it is (it is then typed as a string and not validated).`;
  throw new UnsupportedSpecError(file, `#/paths/${pointerToken(first.path)}`, problem, fix);
}

/** A construct generated with a warning: where (`file#/pointer`), what, and the fix. */
export interface PathWarning {
  pointer: string;
  problem: string;
  fix: string;
}

/**
 * One warning per path whose template holds a query string (D410 every path template real specs use is routed): generated (routed on the part before `?`), but
 * OpenAPI paths have no query part, so other tools may read it otherwise. Paths holding an undeclared `{x}` are
 * refused instead (above).
 */
export function queryStringPathWarnings(model: Pick<ApiModel, 'operations'>, file: string): PathWarning[] {
  const paths = [...new Set(model.operations.map((op) => op.path).filter((p) => p.split('#', 1)[0]!.includes('?')))];
  const undeclared = undeclaredPathParameters(model).filter((u) => inQueryString(u.path, u.name));
  return paths.map((path) => {
    const names = [...new Set(undeclared.filter((u) => u.path === path).map((u) => u.name))];
    const unnamed =
      names.length === 0
        ? ''
        : ` Its ${names.map((n) => `{${n}}`).join(', ')} ${names.length === 1 ? 'is' : 'are'} declared by no parameter: generated as ${names.length === 1 ? 'a string' : 'strings'} read from the query, not validated (D411).`;
    return {
      pointer: `${file}#/paths/${pointerToken(path)}`,
      problem: `the path ${JSON.stringify(path)} holds a query string; OpenAPI paths have no query part. Generated as the path before \`?\` with the query keys it names (D410).${unnamed}`,
      fix: `move the query string out of the path key and declare its parameters with \`in: query\` (two operations that differ only by their query string become one operation with the parameter).`,
    };
  });
}
