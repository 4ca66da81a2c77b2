/**
 * Document-wide constructs the generators do not support, refused right after bundling with their location
 * (decision D61). Constructs local to one emitter are refused by that emitter (request validators: parameter styles,
 * schemas Ajv cannot compile; patterns: generators/src/normalize/patterns.ts).
 */
import { pointerToken, UnsupportedSpecError } from './refusal.js';
import { isObj } from '../util/json.js';

type Obj = Record<string, unknown>;

/** Names every plain object inherits (`constructor`, `toString`, ...): the type layer's resolver mistakes them for its own. */
const INHERITED_NAMES = new Set(Object.getOwnPropertyNames(Object.prototype));

export function refuseUnsupportedDocument(document: Obj, file: string): void {
  refuseUnsupportedVersion(document, file);
  refuseInheritedNames(document, file);
}

/** The generators read OpenAPI 3.0 and 3.1; anything else is refused before a generator sees it. */
function refuseUnsupportedVersion(document: Obj, file: string): void {
  const version = document.openapi;
  if (typeof version === 'string' && /^3\.[01]\.\d+/.test(version)) return;
  const swagger = typeof document.swagger === 'string';
  throw new UnsupportedSpecError(
    file,
    swagger ? '#/swagger' : '#/openapi',
    swagger
      ? `Swagger ${String(document.swagger)} documents are not read; the generators take OpenAPI 3.0 or 3.1.`
      : `openapi ${JSON.stringify(version ?? null)} is not a version the generators read (3.0.x or 3.1.x).`,
    swagger
      ? 'convert the document to OpenAPI 3 (e.g. `npx swagger2openapi spec.json -o openapi.json`) and generate from the result.'
      : 'set `openapi: 3.1.0` (or 3.0.3) and make the document follow that version.',
  );
}

/** A component or webhook named `constructor`, `toString`... (property names are fine). */
function refuseInheritedNames(document: Obj, file: string): void {
  const maps: [string, unknown][] = [['#/webhooks', document.webhooks]];
  if (isObj(document.components))
    for (const [kind, map] of Object.entries(document.components)) maps.push([`#/components/${pointerToken(kind)}`, map]);
  for (const [pointer, map] of maps) {
    if (!isObj(map)) continue;
    const name = Object.keys(map).find((key) => INHERITED_NAMES.has(key));
    if (name === undefined) continue;
    throw new UnsupportedSpecError(
      file,
      `${pointer}/${pointerToken(name)}`,
      `the name ${JSON.stringify(name)} is one every JavaScript object inherits; openapi-typescript (the type layer) cannot resolve a component or webhook called that.`,
      'rename it (and the $refs to it), e.g. with a suffix: `constructorSchema`.',
    );
  }
}
