import type { OperationRoute } from '@paygate/contract/types';
import type { Request, Response } from 'express';

/** A file part of a multipart/form-data request (what multer produced, in memory). */
export interface UploadedFile {
  fieldname: string;
  originalname: string;
  mimetype: string;
  size: number;
  buffer: Buffer;
}

export type { ApiDocument, HttpMethod, OperationRoute, SecurityRequirement, SecuritySchemeInfo } from '@paygate/contract/types';

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
