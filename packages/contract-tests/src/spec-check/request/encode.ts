/** A planned request as fetch's URL and init, and the label failures and JUnit show for it. */
import { encodeBody, type EncodedBody } from '../bodies.js';
import type { RunState } from '../run/state.js';
import { credentialsFor } from './apply-credentials.js';
import type { RequestSpec } from './request-spec.js';
import { serializeParam } from './serialize-param.js';

export interface EncodedRequest {
  url: string;
  init: RequestInit;
  /** `METHOD /path?query (note)`, the query cut at 120 characters. */
  label: string;
  encoded: EncodedBody | undefined;
}

export async function encode(run: RunState, spec: RequestSpec): Promise<EncodedRequest> {
  const op = spec.op;
  let pathname = op.path;
  for (const [name, value] of Object.entries(spec.path)) pathname = pathname.replace(`{${name}}`, encodeURIComponent(value));
  const query: [string, string][] = [];
  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (const [p, value] of spec.params) {
    if (value === null || value === undefined) continue;
    if (p.in === 'query') query.push(...serializeParam(p, value));
    else if (p.in === 'header') headers[p.name] = typeof value === 'object' ? JSON.stringify(value) : String(value);
    else if (p.in === 'cookie') cookies.push(`${p.name}=${String(value)}`);
  }
  let encoded: EncodedBody | undefined;
  if (spec.media !== undefined && spec.body !== undefined) {
    encoded = encodeBody(spec.media, spec.body, run.r.deref);
    if (encoded.contentType !== undefined) headers['Content-Type'] = encoded.contentType;
  }
  const auth = await credentialsFor(run, spec);
  Object.assign(headers, auth.headers);
  query.push(...Object.entries(auth.query));
  cookies.push(...auth.cookies);
  if (cookies.length > 0) headers['Cookie'] = cookies.join('; ');
  const qs = query.length > 0 ? `?${new URLSearchParams(query).toString()}` : '';
  const method = (spec.method ?? op.method).toUpperCase();
  const label = `${method} ${pathname}${qs.length > 120 ? `${qs.slice(0, 120)}...` : qs}${spec.note ? ` (${spec.note})` : ''}`;
  return {
    url: `${run.base}${pathname}${qs}`,
    init: { method, headers, ...(encoded ? { body: encoded.body as BodyInit } : {}) },
    label,
    encoded,
  };
}
