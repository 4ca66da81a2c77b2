/** The intermediate model: everything emitters need, already resolved, sorted and named. */
import type { SchemaNode } from './schema/types.js';

export type * from './schema/types.js';

export type HttpMethod = 'get' | 'put' | 'post' | 'delete' | 'options' | 'head' | 'patch' | 'trace';
export const HTTP_METHODS: readonly HttpMethod[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/** A schema as written in the bundled document (raw JSON); its typed form is a {@link SchemaNode} (./schema/types.ts). */
export type JsonSchema = Record<string, unknown> | boolean;
export type Extensions = Record<string, unknown>;

export type ParameterLocation = 'path' | 'query' | 'header' | 'cookie';

/** OpenAPI serialisation styles of a parameter. */
export type ParameterStyle = 'matrix' | 'label' | 'form' | 'simple' | 'spaceDelimited' | 'pipeDelimited' | 'deepObject';

export interface ParameterModel {
  name: string;
  in: ParameterLocation;
  required: boolean;
  description: string | undefined;
  deprecated: boolean;
  /** The parameter's schema, or the schema of its single `content` media type. */
  schema: JsonSchema | undefined;
  /** `schema` as a typed node (D475 typed schema model with one walker, a node beside every raw schema); undefined when `schema` is. */
  node: SchemaNode | undefined;
  /** false for a path template variable the spec forgot to declare (typed as string). */
  declared: boolean;
  /** Effective style: as declared, else OpenAPI's default for the location (query/cookie `form`, path/header `simple`). */
  style: ParameterStyle | string;
  /** Whether `style` was written in the spec (false: the default above applies). */
  styleDeclared: boolean;
  /** Effective explode: as declared, else true for `form` and false otherwise (OpenAPI's default). */
  explode: boolean;
  /** Whether `explode` was written in the spec. */
  explodeDeclared: boolean;
  allowReserved: boolean;
  allowEmptyValue: boolean;
  /** `content` instead of `schema`: the parameter value is a serialised document of this media type. */
  content: { mediaType: string; schema: JsonSchema | undefined; node: SchemaNode | undefined } | undefined;
  /** Where it is declared: on the operation, or inherited from the path item. */
  level: 'operation' | 'path';
  extensions: Extensions;
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
  /** `schema` as a typed node (D475 typed schema model with one walker, a node beside every raw schema); undefined when `schema` is. */
  node: SchemaNode | undefined;
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
  /** `schema` as a typed node (D475 typed schema model with one walker, a node beside every raw schema); undefined when `schema` is. */
  node: SchemaNode | undefined;
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
  /** `x-client-option`: a top-level option of the generated client that sets this scheme's credential (D121 client auth per security scheme). */
  clientOption: string | undefined;
}

/** Where one value of a page lives: a property path in the page's JSON body, or a response header. */
export type PageValueSource = { in: 'body'; path: string[] } | { in: 'header'; name: string };

/** The size of the whole list a page reports (offset and page strategies stop when it is reached). */
export interface PageTotalModel {
  source: PageValueSource;
  /** What it counts: every item of the list, or pages. */
  counts: 'items' | 'pages';
}

interface PaginationBase {
  /** The success status whose body is the page ('200', else the first 2xx with a JSON body). */
  status: string;
  /** Property path from that JSON body to the items array ([] = the body is the array). */
  itemsPath: string[];
  /** Declared by the operation's `x-pagination`, or found by a detector (generators/src/model/pagination.ts). */
  declared: boolean;
}

/**
 * How a list operation pages, when the generator recognises it (D225 pagination model by strategy): which strategy the client's `...All` helper
 * follows and where each piece lives. `undefined` on an operation = no helper (never a guess).
 * - `cursor`: a token in the body (or a header) sent back as the query parameter `cursorParam`; ends when it is
 *   absent, null or empty, or when the boolean at `hasMorePath` is false.
 * - `lastItem`: the last item's `idField` sent back as `cursorParam` (Stripe's `starting_after`) while `hasMorePath`.
 * - `nextLink`: a URL in the body or a header (an RFC 8288 `Link` header's rel="next" when the header is `Link`); its
 *   query is sent with the same operation. A value that is not a URL goes back as `tokenParam` when there is one.
 * - `offset`: `offsetParam` advanced by the items received; ends at the total, a short or an empty page.
 * - `page`: `pageParam` counted from `firstPage`; ends at the total, a short or an empty page.
 */
export type PaginationModel =
  | (PaginationBase & { strategy: 'cursor'; cursorParam: string; next: PageValueSource; hasMorePath: string[] | undefined })
  | (PaginationBase & { strategy: 'lastItem'; cursorParam: string; idField: string; hasMorePath: string[] | undefined })
  | (PaginationBase & { strategy: 'nextLink'; next: PageValueSource; tokenParam: string | undefined })
  | (PaginationBase & { strategy: 'offset'; offsetParam: string; limitParam: string | undefined; total: PageTotalModel | undefined })
  | (PaginationBase & {
      strategy: 'page';
      pageParam: string;
      pageSizeParam: string | undefined;
      firstPage: number;
      total: PageTotalModel | undefined;
    });

/** The strategies of {@link PaginationModel}. */
export type PaginationStrategy = PaginationModel['strategy'];

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
  /**
   * Every declared parameter in the order the request validator checks them: the operation's own in declaration
   * order, then the path item's ones it does not override (same location and name).
   */
  parameterList: ParameterModel[];
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
  /** `schema` as a typed node, built once (D475 typed schema model with one walker, a node beside every raw schema): a `$ref` to this schema elsewhere is a `ref` node naming it. */
  node: SchemaNode;
}

/** Where an event is declared (D210 webhooks and callbacks are events). `pointer`: the JSON pointer of the operation that sends it, in the bundled document. */
export type EventOriginModel =
  | { kind: 'webhook'; name: string; method: HttpMethod; pointer: string }
  | {
      kind: 'callback';
      /** The callback's name (`fileUpdate`) and runtime expression of the URL it is sent to (`{$request.body#/endpoint}`). */
      name: string;
      expression: string;
      method: HttpMethod;
      /** The operation declaring it: its requests give the URL. */
      operationId: string;
      operationMethod: HttpMethod;
      operationPath: string;
      pointer: string;
    }
  | { kind: 'asyncapi'; name: string };

export interface WebhookEventModel {
  /**
   * The event's name (D210 webhooks and callbacks are events): its discriminator value (`PAYMENT_FAILED`, `batch.completed`), else the webhook's or the
   * callback's name (`operationId.callback` when two callbacks of that name send different payloads). Unique.
   */
  eventType: string;
  /** PascalCase type name (PaymentFailedEvent), unique among the events. */
  typeName: string;
  /** `openapi`: declared by the OpenAPI document (a webhook or a callback: see `origins`); `asyncapi`: only by an AsyncAPI message. */
  source: 'openapi' | 'asyncapi';
  /** Every declaration of the event: webhooks, then callbacks in operation order, then the AsyncAPI message. */
  origins: EventOriginModel[];
  /**
   * The value of the API's discriminator (`ApiModel.webhookDiscriminator`) in the payload: the event is a member of the
   * discriminated union. undefined: the event is known by its name only (its route, its callback), D211.
   */
  discriminatorValue: string | undefined;
  summary: string | undefined;
  description: string | undefined;
  /** Payload schema: a `$ref` into components for OpenAPI webhooks, a resolved schema for AsyncAPI-only messages. */
  schema: JsonSchema;
  /**
   * `schema` as a typed node (D475 typed schema model with one walker, a node beside every raw schema). Its pointers are into the bundled OpenAPI document, or for an AsyncAPI-only
   * message into the AsyncAPI document (`#/components/messages/<name>/payload`).
   */
  node: SchemaNode;
  /** The payload's media type (`application/json`; the first declared when none is JSON). */
  mediaType: string;
  /** Where the payload type lives in the openapi-typescript output, e.g. `components["schemas"]["PaymentFailed"]`. */
  typeRef: string | undefined;
  /**
   * A component schema name the type layer adds for this payload (an inline callback payload or an AsyncAPI-only
   * message: openapi-typescript types neither), free among the document's component schemas; `typeRef` points at it.
   */
  typeLayerSchema: string | undefined;
  /** Also described by an AsyncAPI message (its name), beside or instead of OpenAPI `webhooks`. */
  asyncapiMessage: string | undefined;
  /** Grouping for docs: the AsyncAPI message's first tag, else the webhook's (or callback's, else its operation's) first tag. */
  category: string | undefined;
  /** Human formats of payload fields (`x-format` on a top-level property), e.g. `event_time` -> `YYYY-MM-DD HH:MM:SS`. */
  formats: { field: string; format: string }[];
  /** Example payloads (the payload schema's `examples`, else its `example`; then the media type's `example` / `examples`). */
  examples: unknown[];
  /** Header parameters the OpenAPI webhook declares (signature headers), in declaration order. */
  headers: ParameterModel[];
}

/** An event the AsyncAPI document announces for a later version (`x-planned-events`): documented, not sent. */
export interface PlannedEventModel {
  eventType: string;
  category: string | undefined;
  summary: string;
}

/** A named enumeration: a component schema with `enum`, or a component's property with an inline `enum`. */
export interface EnumModel {
  /** PascalCase identifier (the component's name, or the property's name, qualified by its schema when ambiguous). */
  name: string;
  values: (string | number | boolean | null)[];
  description: string | undefined;
  /** Where it is declared: `#/components/schemas/MopType`, `#/components/schemas/CompanyDetails/properties/business_mode`. */
  pointers: string[];
}

/** One entry of the error catalogue (`x-error-catalogue`): the code, its HTTP status and when it is sent. */
export interface ErrorCatalogueEntry {
  code: string;
  status: number | undefined;
  when: string | undefined;
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
  /** `info.x-client-identification`: a header the generated client sends on every call naming itself (D121 client auth per security scheme). */
  clientIdentification: { header: string; product: string } | undefined;
  version: string;
  description: string | undefined;
  openapiVersion: string;
  servers: { url: string; description: string | undefined }[];
  tags: TagModel[];
  /** Sorted by path, then method order. */
  operations: OperationModel[];
  /** The component schemas, sorted by name: raw (`schema`) and typed (`node`). */
  schemas: SchemaModel[];
  securitySchemes: SecuritySchemeModel[];
  webhooks: WebhookEventModel[];
  /** Error codes enumerated by the spec (`x-error-codes` or an error schema's `code` enum), sorted. */
  errorCodes: string[];
  /** `x-error-catalogue` entries (status and meaning per code), sorted by code; [] when the spec has none. */
  errorCatalogue: ErrorCatalogueEntry[];
  /** Named enumerations, sorted by name. */
  enums: EnumModel[];
  /** Events announced for later versions, in document order. */
  plannedEvents: PlannedEventModel[];
  /**
   * The payload property naming the event (D211 event discriminator declared or detected): `x-event-discriminator`, else detected (a required constant string
   * with a distinct value per event: `event_type`, `type`, ...); undefined: events are known by name only.
   */
  webhookDiscriminator: string | undefined;
  extensions: Extensions;
}
