/**
 * Whether an operation's body schema accepts a request's parsed body, read with the operation's own compiled body
 * validators (request-validators.gen.ts; nothing compiled twice): what the dispatcher asks to choose among operations
 * of one path and method told apart only by their bodies (D485, "Operations told apart by their bodies dispatched by
 * body schema").
 */
import type { Request } from 'express';
import { validateEachLine } from './ndjson-lines.js';
import { type AjvError, mediaTypeSelector, type OperationRequestValidators } from './request-validation.js';

/**
 * The check of one operation's body, or undefined when it has none the dispatcher can read before validation (no
 * body, or multipart, which is parsed by the validate step). The body is validated on a copy: the validators apply
 * the schema's defaults in place, and the body belongs to the operation finally chosen. `linewise`: the ndjson media
 * types whose schema is one line's (ndjson-lines.ts).
 */
export function bodyAccepted(
  v: OperationRequestValidators,
  linewise: ReadonlySet<string> = new Set(),
): ((req: Request) => boolean) | undefined {
  const content = v.body?.content;
  if (content === undefined || content.length === 0 || v.multipart === true) return undefined;
  const select = mediaTypeSelector(content.map((c) => c.mediaType));
  return (req) => {
    const selected = select(req.headers['content-type']);
    const media = content.find((c) => c.mediaType === selected);
    if (media === undefined) return false;
    let body: unknown;
    try {
      body = structuredClone(req.body);
    } catch {
      return false;
    }
    if (!linewise.has(media.mediaType) || !Array.isArray(body)) return media.validate({ body });
    const errors: AjvError[] = [];
    validateEachLine(media.validate, body, errors);
    return errors.length === 0;
  };
}
