import { escapePointerToken } from '../util/json.js';
/**
 * A construct of the spec the generators cannot turn into working code. It is refused before anything is written,
 * naming the file and the JSON pointer of the construct, what is wrong and what to do next; the CLI prints the
 * message without a stack trace (exit 1, like a lint error).
 */
export class UnsupportedSpecError extends Error {
  override name = 'UnsupportedSpecError';

  constructor(
    /** The spec file (repo-relative) the construct was read from. */
    readonly file: string,
    /** JSON pointer of the construct in the bundled document, e.g. `#/components/schemas/Payer/properties/email/pattern`. */
    readonly pointer: string,
    /** What is wrong. */
    readonly problem: string,
    /** What to change in the spec. */
    readonly fix: string,
  ) {
    super(
      `Refusing to generate: ${file}${pointer}\n  ${problem}\n  Fix: ${fix}\n  Then generate again: \`npx paygate generate\` (in the Paygate repository: \`npm run generate\`).`,
    );
  }
}

/** One JSON-pointer token (RFC 6901). */
export function pointerToken(key: string | number): string {
  return escapePointerToken(String(key));
}

/** The OpenAPI file of a model's `source` (`openapi.yaml + asyncapi.yaml` -> `openapi.yaml`). */
export function openapiFileOf(source: string): string {
  return source.split(' + ')[0] ?? source;
}
