import type { Request, Response } from 'express';

/** A file part of a multipart/form-data request (what multer produced, in memory). */
export interface UploadedFile {
  fieldname: string;
  originalname: string;
  mimetype: string;
  size: number;
  buffer: Buffer;
}

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

export interface Logger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** Passed to every handler beside the typed request. */
export interface HandlerContext<TPrincipal = unknown> {
  /** What `authenticate` returned (undefined for public operations or without an authenticate hook). */
  principal: TPrincipal;
  operation: OperationRoute;
  /** The raw Express objects, for what the typed request does not carry (ip, raw headers, streaming). */
  req: Request;
  res: Response;
  logger: Logger;
}
