/**
 * Step `serialize`: a handler's result (or a hook's) becomes the bytes the scaffold sends: JSON through the serializer
 * compiled from the response's schema (D142 compiled response serializers in production), text and bytes as they are.
 * A handler hook's `render` returns the same {@link RenderedResponse}.
 */
import type { Application } from 'express';
import type { ResponseSerializers } from '../response-serializers.js';
import type { OperationRoute } from '../types.js';

export function isJsonMediaType(mediaType: string): boolean {
  return /^application\/(.+\+)?json/.test(mediaType);
}

/** Media types to send for a status: the exact key, else `NXX`, else `default`. */
export function declaredMediaTypes(operation: OperationRoute, status: number): readonly string[] {
  return operation.responses[String(status)] ?? operation.responses[`${String(status)[0]}XX`] ?? operation.responses.default ?? [];
}

export interface HandlerResult {
  status: number;
  body?: unknown;
  headers?: Record<string, unknown>;
  contentType?: string;
}

/**
 * A response already rendered: the status, the content type the scaffold chose (the handler's, else the first one
 * declared for the status), the headers and the exact body it sends. `render` in a handler hook returns one (what
 * the scaffold would send for a result or an error), and a hook may return one instead of a result, e.g. an
 * idempotent replay of stored bytes; it is sent byte for byte.
 */
export class RenderedResponse {
  constructor(
    readonly status: number,
    /** null when there is no body. */
    readonly contentType: string | null,
    readonly headers: Readonly<Record<string, string>>,
    readonly body: string | Uint8Array | undefined,
  ) {}
}

/** JSON exactly as Express's `res.json` writes it (the app's `json replacer`, `json spaces` and `json escape`). */
export function jsonText(app: Application, body: unknown): string {
  const settings = app.settings as Record<string, unknown>;
  const replacer = settings['json replacer'] as ((this: unknown, key: string, value: unknown) => unknown) | undefined;
  const spaces = settings['json spaces'] as string | number | undefined;
  let text = replacer || spaces ? JSON.stringify(body, replacer, spaces) : JSON.stringify(body);
  if (settings['json escape']) text = text.replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
  return text;
}

/**
 * A handler's JSON body: through the serializer compiled from the response's schema (undeclared properties stripped,
 * D142), unless responses are validated (development: what the handler returned is sent and checked as is, so that a
 * wrong type is reported rather than coerced) or the app asks for Express's own JSON (`json replacer`, `json spaces`,
 * `json escape` settings).
 */
export function jsonBody(
  app: Application,
  serializers: ResponseSerializers | undefined,
  operation: OperationRoute,
  status: number,
  contentType: string,
  body: unknown,
): string {
  const settings = app.settings as Record<string, unknown>;
  if (serializers === undefined || settings['json replacer'] || settings['json spaces'] || settings['json escape'])
    return jsonText(app, body);
  return serializers.stringify(operation, status, contentType, body);
}

/** The one serialisation of a handler result (sent by the scaffold, and what a hook's `render` returns). */
export function renderResult(
  app: Application,
  serializers: ResponseSerializers | undefined,
  operation: OperationRoute,
  result: HandlerResult,
): RenderedResponse {
  if (typeof result !== 'object' || result === null || !Number.isInteger(result.status)) {
    throw new Error(`Handler ${operation.operationId} returned no { status }`);
  }
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(result.headers ?? {})) if (value !== undefined) headers[name] = String(value);
  if (result.body === undefined) return new RenderedResponse(result.status, null, headers, undefined);
  const contentType = result.contentType ?? declaredMediaTypes(operation, result.status)[0] ?? 'application/json';
  const body = isJsonMediaType(contentType)
    ? jsonBody(app, serializers, operation, result.status, contentType, result.body)
    : typeof result.body !== 'string' && !(result.body instanceof Uint8Array)
      ? jsonText(app, result.body)
      : result.body;
  return new RenderedResponse(result.status, contentType, headers, body);
}
