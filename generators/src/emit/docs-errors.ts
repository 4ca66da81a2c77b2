/**
 * The errors page of a spec that gives no error catalogue (decision D203: docs for any spec): what the spec itself says
 * about its errors, in its own words. Each error response (4xx, 5xx, their ranges and `default`) with its description,
 * its body schema and the operations that answer it; each error body schema with its fields; and the error codes the
 * spec enumerates (a `code` enum of an error schema, `x-error-codes`), with `x-error-catalogue`'s status and condition
 * where the spec has them. A catalogue the user gives (`paygate docs --errors FILE`, or docs/errors.md) replaces this
 * page and is checked against the spec's codes instead.
 */
import { namedNodes, objectShapeOf, type ResolveNamed } from '../model/schema/shape.js';
import type { SchemaNode } from '../model/schema/types.js';
import type { ApiModel, ResponseModel } from '../model/types.js';
import { compareStrings } from '../util/sorted.js';
import { errorFieldType, fieldDescription } from './docs-schema-labels.js';

export interface SpecErrorResponseRow {
  /** `404`, `4XX`, `default`. */
  status: string;
  description: string;
  /** The body: media type and schema (`application/json`: `Error`), or '' when bodiless. */
  body: string;
  /** The operations answering it: up to OPERATIONS_SHOWN ids, then `and N more`. */
  operations: string;
}

export interface SpecErrorSchemaField {
  name: string;
  type: string;
  required: boolean;
  description: string;
}

export interface SpecErrorSchema {
  /** Component name (the anchor of the page). */
  name: string;
  description: string;
  fields: SpecErrorSchemaField[];
}

export interface SpecErrorCodeRow {
  code: string;
  /** From `x-error-catalogue`, else ''. */
  status: string;
  when: string;
}

export interface SpecErrorsView {
  responses: SpecErrorResponseRow[];
  schemas: SpecErrorSchema[];
  codes: SpecErrorCodeRow[];
}

/** Operation ids shown per row before `and N more` (a status every operation declares would list them all). */
const OPERATIONS_SHOWN = 6;

const isErrorResponse = (r: ResponseModel): boolean => r.kind === 'default' || /^[45]/.test(r.status);

/** `4XX` after the exact 4xx statuses, `default` last. */
function statusRank(status: string): string {
  if (/^\d{3}$/.test(status)) return `0${status}`;
  if (/^\dXX$/.test(status)) return `1${status}`;
  return `2${status}`;
}

/** The errors page's view of the model (see the module comment); empty lists when the spec declares no errors. */
export function specErrorsView(model: Pick<ApiModel, 'operations' | 'schemas' | 'errorCodes' | 'errorCatalogue'>): SpecErrorsView {
  const resolve = namedNodes(model.schemas);
  const rows = new Map<string, { status: string; description: string; body: string; operations: string[] }>();
  const schemas = new Map<string, SpecErrorSchema>();
  for (const op of model.operations) {
    for (const response of op.responses.filter(isErrorResponse)) {
      const bodies = response.content.map((media) => {
        const label = media.node === undefined ? '' : `: ${errorFieldType(media.node, resolve)}`;
        const ref = media.node?.kind === 'ref' ? media.node.name : undefined;
        if (ref !== undefined && !schemas.has(ref)) schemas.set(ref, errorSchema(resolve, ref, media.node));
        return `\`${media.mediaType}\`${label}`;
      });
      const body = bodies.join('; ');
      const description = response.description.trim();
      const key = [response.status, description, body].join('\u0000');
      const row = rows.get(key) ?? { status: response.status, description, body, operations: [] };
      rows.set(key, row);
      row.operations.push(op.operationId);
    }
  }
  const catalogue = new Map(model.errorCatalogue.map((e) => [e.code, e]));
  return {
    responses: [...rows.values()]
      .sort(
        (a, b) =>
          compareStrings(statusRank(a.status), statusRank(b.status)) ||
          compareStrings(a.description, b.description) ||
          compareStrings(a.body, b.body),
      )
      .map((row) => ({
        status: row.status,
        description: row.description,
        body: row.body,
        operations: operationList(row.operations),
      })),
    schemas: [...schemas.values()].sort((a, b) => compareStrings(a.name, b.name)),
    codes: model.errorCodes.map((code) => {
      const entry = catalogue.get(code);
      return { code, status: entry?.status === undefined ? '' : String(entry.status), when: entry?.when ?? '' };
    }),
  };
}

function operationList(ids: readonly string[]): string {
  const unique = [...new Set(ids)];
  const shown = unique.slice(0, OPERATIONS_SHOWN).map((id) => `\`${id}\``);
  const more = unique.length - OPERATIONS_SHOWN;
  return more > 0 ? `${shown.join(', ')} and ${more} more` : shown.join(', ');
}

/** An error body component with its top-level fields (allOf members merged), read from its typed node (D479 the API reference reads typed schema nodes). */
function errorSchema(resolve: ResolveNamed, name: string, node: SchemaNode | undefined): SpecErrorSchema {
  const { properties, required } = objectShapeOf(node, resolve);
  return {
    name,
    description: fieldDescription(node, resolve),
    fields: [...properties].map(([field, prop]) => ({
      name: field,
      type: errorFieldType(prop, resolve),
      required: required.has(field),
      description: fieldDescription(prop, resolve),
    })),
  };
}

/** Whether the view has anything to show (else the site has no errors page). */
export function hasSpecErrors(view: SpecErrorsView): boolean {
  return view.responses.length > 0 || view.codes.length > 0;
}
