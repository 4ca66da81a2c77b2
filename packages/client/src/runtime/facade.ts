/**
 * What the generated facade (client.gen.ts) calls: one `call` per operation around the openapi-fetch transport, the
 * `init` object it passes, and the multipart / urlencoded body serialisers. Hand-written so it is type-checked and
 * tested here; the generated file only lists operations.
 */
import { toResult, type ErrorEnvelope, type OpenApiFetchResponse, type PaygateResult } from './result.js';

/** Per-call options: extra/override headers (typed header parameters of the operation) and an abort signal. */
export interface CallOptions<H extends object = Record<string, never>> {
  headers?: H & Record<string, string | undefined>;
  signal?: AbortSignal;
}

/** The request init object openapi-fetch receives. */
export interface FetchInit {
  params: { path?: object; query?: object; header?: object };
  body?: unknown;
  bodySerializer?: (body: never) => unknown;
  parseAs?: 'text' | 'blob';
  signal?: AbortSignal;
}

/** The openapi-fetch call as a result (`data` on 2xx, else the error envelope with codes `C`). */
export function call<T, C extends string = string>(promise: Promise<{ response: Response }>): Promise<PaygateResult<T, C>> {
  return toResult(promise as Promise<OpenApiFetchResponse<T, ErrorEnvelope<C>>>);
}

/** multipart/form-data body: one part per value (arrays repeat the field); null/undefined are left out. */
export function toFormData(body: Record<string, unknown>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(body)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      if (item === undefined || item === null) continue;
      form.append(name, item instanceof Blob ? item : String(item));
    }
  }
  return form;
}

/** application/x-www-form-urlencoded body: arrays repeat the field; null/undefined are left out. */
export function toUrlEncoded(body: Record<string, unknown>): URLSearchParams {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(body)) {
    for (const item of Array.isArray(value) ? value : [value]) if (item !== undefined && item !== null) form.append(name, String(item));
  }
  return form;
}

/**
 * The init object of one call. Typed `never` on purpose: the generated public signatures are typed from the spec,
 * and openapi-fetch's overloads cannot express the optional-by-default headers.
 */
export function init(
  path: object | undefined,
  query: object | undefined,
  opts: CallOptions<object> | undefined,
  body?: unknown,
  bodySerializer?: (body: never) => unknown,
  parseAs?: 'text' | 'blob',
): never {
  const value: FetchInit = { params: { path, query, header: opts?.headers } };
  if (body !== undefined) value.body = body;
  if (bodySerializer !== undefined) value.bodySerializer = bodySerializer;
  if (parseAs !== undefined) value.parseAs = parseAs;
  if (opts?.signal !== undefined) value.signal = opts.signal;
  return value as never;
}
