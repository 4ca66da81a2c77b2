import { isIP } from 'node:net';
import type { Schemas } from '../core/contract.js';
// D171: signing alone, not the package index (its generated event validators: start-up cost)
import { generateWebhookSecret } from '@paygate/webhooks/runtime/signing.js';
import { DomainError, validationError } from '../core/errors.js';
import { nonPublicRange } from './address-ranges.js';
import type { EventType } from './events.js';
import { ID_PATTERN, newWebhookEndpointId } from '../core/ids.js';
import type { SecretBox } from '../core/secret-box.js';
import { cappedCount, DEFAULT_PAGE_SIZE, keysetClauses, pageRequest, toPage, type Page } from '../core/pagination.js';
import { formatIso } from '../core/clock.js';
import type { ServiceDeps } from '../core/deps.js';
import type { Scope } from '../core/scope.js';
import { Params } from '../db/params.js';
import { insertInto, sql, VALUE } from '../db/insert.js';

export interface WebhookEndpointView {
  id: string;
  url: string;
  events: EventType[];
  description: string | null;
  merchant_id: string | null;
  created_at: string;
  /** `disabled` after a 410 Gone answer (D79 410 Gone disables an endpoint, enable endpoint). */
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
}

interface EndpointRow extends Omit<WebhookEndpointView, 'status'> {
  disabled_at: string | null;
}

/** Listing columns: never the secret (sealed or not). */
const COLUMNS = 'id, url, events, description, merchant_id, created_at, disabled_at, disabled_reason';

/**
 * The position of the newest event created so far (the events' sequence, committed or not): an endpoint registered now
 * receives only events above it (D79 410 Gone disables an endpoint, enable endpoint). 0 before the first event.
 */
const LAST_EVENT_POSITION_SQL = `(SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM events_position_seq)`;

/** Sealing context of an endpoint's signing secret (binds the sealed value to its row). */
export function webhookSecretContext(endpointId: string): string {
  return `webhook_endpoint:${endpointId}:secret`;
}

/** Special-use names that never reach a public receiver (RFC 6761 localhost, RFC 6762 .local, RFC 8375 home.arpa, ICANN .internal). */
const LOCAL_NAME_SUFFIXES = ['.localhost', '.local', '.internal', '.home.arpa'];

/**
 * Why `hostname` (as the WHATWG URL parser left it: lower case, IPv4 in dotted decimal however it was written, IPv6 in
 * brackets) cannot be a public receiver, or undefined. Literal addresses are classified by `nonPublicRange` (ipaddr.js,
 * the library request-filtering-agent uses, plus the IPv6 ranges it misses, D97): anything but public unicast is
 * refused, IPv4-mapped and IPv4-compatible IPv6 included. Names are refused
 * when they are `localhost`, single-label (resolved through search domains to internal hosts) or special-use; any other
 * name is only checked when a delivery connects (D35: DNS answers change, so resolving here would prove nothing).
 */
export function privateDestinationReason(hostname: string): string | undefined {
  const host = hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
  if (isIP(host) !== 0) {
    const range = nonPublicRange(host);
    return range === undefined ? undefined : `must not point to a private, loopback, link-local or metadata address (${host} is ${range})`;
  }
  if (host === 'localhost' || !host.includes('.') || LOCAL_NAME_SUFFIXES.some((suffix) => host.endsWith(suffix))) {
    return `must name a public host (${host} is local or internal)`;
  }
  return undefined;
}

/**
 * A receiver URL: absolute, https (http too when `allowInsecure`), no user info, and unless `allowPrivateDestinations`
 * no local, internal or non-public literal host (400 ERR_VALIDATION_400 with details.url). Exported for every
 * operation that accepts an endpoint URL.
 */
export function checkWebhookUrl(url: unknown, options: { allowInsecure: boolean; allowPrivateDestinations: boolean }): string {
  if (typeof url !== 'string' || url.length > 2048) throw validationError('url', 'must be an absolute URL of at most 2048 characters');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw validationError('url', 'must be an absolute URL');
  }
  if (parsed.protocol !== 'https:' && !(options.allowInsecure && parsed.protocol === 'http:')) {
    throw validationError('url', options.allowInsecure ? 'must use http or https' : 'must use https');
  }
  if (parsed.username || parsed.password) throw validationError('url', 'must not contain credentials');
  if (!options.allowPrivateDestinations) {
    const reason = privateDestinationReason(parsed.hostname);
    if (reason) throw validationError('url', reason);
  }
  return url;
}

/** The subscribed events once each (request validation has checked each is an EventType, at least one). */
function uniqueEvents(events: readonly EventType[]): EventType[] {
  return [...new Set(events)];
}

/** A new endpoint, subscribed from the next event on: the webhook_endpoints row's one column list (D460, "An INSERT is built from its table's column list"). */
const INSERT_ENDPOINT = insertInto(
  'webhook_endpoints',
  {
    id: VALUE,
    owner_kind: VALUE,
    partner_id: VALUE,
    merchant_id: VALUE,
    url: VALUE,
    events: VALUE,
    description: VALUE,
    secret_sealed: VALUE,
    created_at: VALUE,
    events_after_position: sql(LAST_EVENT_POSITION_SQL),
  },
  { tail: `RETURNING ${COLUMNS}` },
);

/**
 * Register an endpoint. Owner: the merchant when the scope names one (merchant credentials or X-Merchant-ID),
 * else the partner (receives every merchant's events). The `whsec_` secret is returned here only.
 * `allowInsecure` (sandbox) permits http:// URLs; `allowPrivateDestinations` (sandbox default) local receivers.
 */
export async function createWebhookEndpoint(
  deps: ServiceDeps,
  scope: Scope,
  input: Schemas['CreateWebhookEndpointRequest'],
  options: { allowInsecure: boolean; allowPrivateDestinations: boolean },
): Promise<WebhookEndpointView & { secret: string }> {
  const url = checkWebhookUrl(input.url, options);
  const events = uniqueEvents(input.events);
  if (input.description !== undefined && (typeof input.description !== 'string' || input.description.length > 500)) {
    throw validationError('description', 'must be a string of at most 500 characters');
  }
  const id = newWebhookEndpointId();
  const secret = generateWebhookSecret();
  // Stored sealed under the master key (deliveries need it to sign); the plaintext is returned here only.
  const { rows } = await deps.db.query<EndpointRow>(
    INSERT_ENDPOINT.text,
    INSERT_ENDPOINT.values({
      id,
      owner_kind: scope.merchantId ? 'merchant' : 'partner',
      partner_id: scope.partnerId,
      merchant_id: scope.merchantId ?? null,
      url,
      events: JSON.stringify(events),
      description: input.description ?? null,
      secret_sealed: deps.secrets.seal(secret, webhookSecretContext(id)),
      created_at: formatIso(deps.clock.now()),
    }),
  );
  const row = rows[0] as EndpointRow;
  return { ...view(row), secret };
}

function view(r: EndpointRow): WebhookEndpointView {
  return {
    id: r.id,
    url: r.url,
    events: r.events,
    description: r.description,
    merchant_id: r.merchant_id,
    created_at: r.created_at,
    status: r.disabled_at === null ? 'enabled' : 'disabled',
    disabled_reason: r.disabled_reason,
  };
}

/** `partner_id = ... [AND merchant_id = ...]` for the endpoints a scope owns (`alias.` prefixes the columns). */
export function ownerCondition(scope: Scope, p: Params, alias = ''): string {
  const partner = `${alias}partner_id = ${p.add(scope.partnerId)}`;
  return scope.merchantId ? `${partner} AND ${alias}merchant_id = ${p.add(scope.merchantId)}` : partner;
}

/** Endpoints visible to the scope (a partner sees its own and its merchants'; a merchant its own). Secrets omitted. */
export async function listWebhookEndpoints(
  deps: ServiceDeps,
  scope: Scope,
  query: { page?: number | string | undefined; page_size?: number | string | undefined; cursor?: string | undefined } = {},
): Promise<Page<WebhookEndpointView>> {
  const req = pageRequest(query.page, query.page_size, DEFAULT_PAGE_SIZE.webhookEndpoints, query.cursor);
  const p = new Params();
  const fromWhere = `FROM webhook_endpoints WHERE ${ownerCondition(scope, p)} AND deleted_at IS NULL`;
  const countValues = [...p.values];
  const keyset = keysetClauses(req, 'created_at', 'id', p);
  const [count, list] = await Promise.all([
    cappedCount(deps.db, fromWhere, countValues, 'created_at', 'id'),
    deps.db.query<EndpointRow>(`SELECT ${COLUMNS} ${fromWhere}${keyset.where ? ` AND ${keyset.where}` : ''} ${keyset.tail}`, p.values),
  ]);
  return toPage(req, count, list.rows, (r) => ({ at: r.created_at, id: r.id }), view);
}

/** Soft-delete an endpoint (pending deliveries to it stop). Unknown / not visible => 404 ERR_WEBHOOK_404. */
export async function deleteWebhookEndpoint(deps: ServiceDeps, scope: Scope, endpointId: string): Promise<{ id: string; deleted: true }> {
  if (!ID_PATTERN.webhookEndpoint.test(endpointId)) throw new DomainError('ERR_WEBHOOK_404', 'Webhook endpoint not found');
  const p = new Params();
  const { rows } = await deps.db.query<{ id: string }>(
    `UPDATE webhook_endpoints SET deleted_at = ${p.add(formatIso(deps.clock.now()))}
     WHERE id = ${p.add(endpointId)} AND ${ownerCondition(scope, p)} AND deleted_at IS NULL RETURNING id`,
    p.values,
  );
  if (rows.length === 0)
    throw new DomainError('ERR_WEBHOOK_404', 'Webhook endpoint not found', { endpoint_id: `no endpoint ${endpointId}` });
  return { id: endpointId, deleted: true };
}

/**
 * Turn an endpoint disabled by 410 Gone back on (idempotent): it receives events created from now on (D79 410 Gone disables an endpoint, enable endpoint). Unknown,
 * deleted or another tenant's => 404 ERR_WEBHOOK_404.
 */
export async function enableWebhookEndpoint(deps: ServiceDeps, scope: Scope, endpointId: string): Promise<WebhookEndpointView> {
  if (!ID_PATTERN.webhookEndpoint.test(endpointId)) throw new DomainError('ERR_WEBHOOK_404', 'Webhook endpoint not found');
  const p = new Params();
  // events created while it was disabled stay undelivered: the endpoint starts again from the newest event
  const { rows } = await deps.db.query<EndpointRow>(
    `UPDATE webhook_endpoints
     SET events_after_position = CASE WHEN disabled_at IS NULL THEN events_after_position ELSE ${LAST_EVENT_POSITION_SQL} END,
         disabled_at = NULL, disabled_reason = NULL,
         -- the merchant says the receiver is back: no endpoint-level backoff left over (D342)
         failing_since = CASE WHEN disabled_at IS NULL THEN failing_since END,
         retry_after = CASE WHEN disabled_at IS NULL THEN retry_after END
     WHERE id = ${p.add(endpointId)} AND ${ownerCondition(scope, p)} AND deleted_at IS NULL RETURNING ${COLUMNS}`,
    p.values,
  );
  const row = rows[0];
  if (!row) throw new DomainError('ERR_WEBHOOK_404', 'Webhook endpoint not found', { endpoint_id: `no endpoint ${endpointId}` });
  return view(row);
}

/** The signing secret of an endpoint row as the deliverer reads it (opened from its sealed column). Never log it. */
export function openWebhookSecret(secrets: SecretBox, row: { endpoint_id: string; secret_sealed: string }): string {
  return secrets.open(row.secret_sealed, webhookSecretContext(row.endpoint_id));
}
