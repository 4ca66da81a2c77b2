/**
 * The shapes of the contract's generated data (route table, security schemes, API document) and the error envelope.
 * Spec-independent: the hand-written runtimes of @paygate/server and @paygate/client import these (via
 * `@paygate/contract/types`) whatever document they were generated from.
 */

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';

/** One alternative of a security requirement: every listed scheme must pass. */
export type SecurityRequirement = readonly { readonly scheme: string; readonly scopes: readonly string[] }[];

/** Route-table entry (generated in operations.gen.ts). */
export interface OperationRoute {
  readonly operationId: string;
  readonly method: HttpMethod;
  /** OpenAPI path template. */
  readonly path: string;
  /** Express 5 path. */
  readonly expressPath: string;
  readonly tags: readonly string[];
  /** Declared header parameters, lower-cased, sorted. */
  readonly headerParameters: readonly string[];
  readonly requestMediaTypes: readonly string[];
  readonly requestBodyRequired: boolean;
  /** multipart fields holding files. */
  readonly fileFields: readonly { readonly name: string; readonly multiple: boolean }[];
  /** Alternatives (OR) of requirements (AND); [] = public. */
  readonly security: readonly SecurityRequirement[];
  /** Declared media types per status key ('200', '4XX', 'default'). */
  readonly responses: Readonly<Record<string, readonly string[]>>;
}

export interface SecuritySchemeInfo {
  readonly type: string;
  readonly in: string | null;
  readonly name: string | null;
  readonly scheme: string | null;
}

/** The bundled OpenAPI document as a plain JSON object. */
export interface ApiDocument {
  openapi: string;
  info: { title: string; version: string; [key: string]: unknown };
  paths?: Record<string, unknown>;
  [key: string]: unknown;
}

/**
 * The error envelope every failed request answers with: `{ success: false, error: { code, message, details? } }`.
 * `details` maps a field (`buyer.email`, `items[0].name`, a parameter name) to its message. The one declaration:
 * the server runtime sends it, the client runtime reads it (typed by the spec's error codes).
 */
export interface ErrorEnvelope<C extends string = string> {
  success: false;
  error: { code: C; message: string; details?: Record<string, string> };
}
