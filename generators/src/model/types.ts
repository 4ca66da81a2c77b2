/** The intermediate model: everything emitters need, already resolved, sorted and named. */

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';
export const HTTP_METHODS: readonly HttpMethod[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export type JsonSchema = Record<string, unknown> | boolean;
export type Extensions = Record<string, unknown>;

export interface ParameterModel {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  description: string | undefined;
  deprecated: boolean;
  schema: JsonSchema | undefined;
  /** false for a path template variable the spec forgot to declare (typed as string). */
  declared: boolean;
}

export interface ParameterGroups {
  path: ParameterModel[];
  query: ParameterModel[];
  header: ParameterModel[];
  cookie: ParameterModel[];
}

export type MultipartFieldKind = 'file' | 'files' | 'string' | 'strings';

export interface MultipartField {
  name: string;
  required: boolean;
  kind: MultipartFieldKind;
}

export interface MediaTypeModel {
  mediaType: string;
  schema: JsonSchema | undefined;
  /** Set for multipart/form-data (and urlencoded) bodies whose schema is an object. */
  fields: MultipartField[] | undefined;
}

export interface RequestBodyModel {
  required: boolean;
  description: string | undefined;
  content: MediaTypeModel[];
}

export interface HeaderModel {
  name: string;
  required: boolean;
  description: string | undefined;
  schema: JsonSchema | undefined;
}

export interface ResponseModel {
  /** As written: '200', '4XX', 'default'. */
  status: string;
  /** Concrete numeric statuses this entry covers (range expanded minus explicit siblings; [] for default). */
  statusCodes: number[];
  kind: 'exact' | 'range' | 'default';
  description: string;
  content: MediaTypeModel[];
  headers: HeaderModel[];
}

/** One alternative of a security requirement: all schemes listed must pass (AND); alternatives are OR'd. */
export type SecurityRequirementModel = { scheme: string; scopes: string[] }[];

export interface SecuritySchemeModel {
  name: string;
  type: string;
  /** apiKey: where and which name. */
  in: string | undefined;
  parameterName: string | undefined;
  /** http: basic/bearer. */
  scheme: string | undefined;
  description: string | undefined;
}

export interface PaginationModel {
  pageParam: string;
  pageSizeParam: string | undefined;
  /** Property path from the 200 JSON body to the items array ([] = the body is the array). */
  itemsPath: string[];
}

export interface CallbackModel {
  name: string;
  expression: string;
  operations: { method: HttpMethod; requestBody: RequestBodyModel | undefined; summary: string | undefined }[];
}

export interface OperationModel {
  operationId: string;
  /** true when synthesised from method + path. */
  synthesizedId: boolean;
  method: HttpMethod;
  path: string;
  expressPath: string;
  tags: string[];
  summary: string | undefined;
  description: string | undefined;
  deprecated: boolean;
  parameters: ParameterGroups;
  requestBody: RequestBodyModel | undefined;
  responses: ResponseModel[];
  /** Effective requirements (operation-level, else document-level). [] = public. */
  security: SecurityRequirementModel[];
  callbacks: CallbackModel[];
  pagination: PaginationModel | undefined;
  extensions: Extensions;
}

export interface SchemaModel {
  name: string;
  /** Pointer in the bundled document: `#/components/schemas/<name>`. */
  ref: string;
  schema: JsonSchema;
}

export interface WebhookEventModel {
  /** Discriminator value (`event_type` const), else the webhook/message name. */
  eventType: string;
  /** PascalCase type name (PaymentFailedEvent). */
  typeName: string;
  source: 'openapi' | 'asyncapi';
  summary: string | undefined;
  description: string | undefined;
  /** Payload schema: a `$ref` into components for OpenAPI webhooks, a resolved schema for AsyncAPI-only messages. */
  schema: JsonSchema;
  /** Where the payload type lives in the openapi-typescript output, e.g. `components["schemas"]["PaymentFailed"]`. */
  typeRef: string | undefined;
}

export interface TagModel {
  name: string;
  description: string | undefined;
}

export interface ApiModel {
  /** Source path as printed in headers (repo-relative). */
  source: string;
  title: string;
  /** `info.x-client-name`, if the spec names its client facade. */
  clientName: string | undefined;
  version: string;
  description: string | undefined;
  openapiVersion: string;
  servers: { url: string; description: string | undefined }[];
  tags: TagModel[];
  /** Sorted by path, then method order. */
  operations: OperationModel[];
  schemas: SchemaModel[];
  securitySchemes: SecuritySchemeModel[];
  webhooks: WebhookEventModel[];
  /** Error codes enumerated by the spec (`x-error-codes` or an error schema's `code` enum), sorted. */
  errorCodes: string[];
  /** Property name carrying the webhook discriminator. */
  webhookDiscriminator: string;
  extensions: Extensions;
}
