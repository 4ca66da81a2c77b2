import type { Schemas } from '../core/contract.js';
import { DomainError, validationError } from '../core/errors.js';
import { ID_PATTERN } from '../core/ids.js';
import { formatIso } from '../core/clock.js';
import type { ServiceDeps } from '../core/deps.js';
import { merchantNowSql } from '../core/merchant-clock.js';
import { cappedCount, DEFAULT_PAGE_SIZE, keysetClauses, pageRequest, toPage, type Page } from '../core/pagination.js';
import type { Scope } from '../core/scope.js';
import { Params } from '../db/params.js';
import { ownerCondition } from './endpoints.js';

/** What merchants see of deliveries and their attempts (D78 webhook deliveries list and redelivery): the list of an endpoint, and redelivery. */

type DeliveryView = Schemas['WebhookDelivery'];
type DeliveryStatus = DeliveryView['status'];
const DELIVERY_STATUSES: readonly DeliveryStatus[] = ['pending', 'delivering', 'succeeded', 'failed'];

interface DeliveryRow {
  /** The internal sequence (attempts reference it; never shown). */
  id: string;
  /** `dlv_` + 22 random base64url characters (D99 random delivery ids). */
  public_id: string;
  endpoint_id: string;
  event_id: string;
  event_type: DeliveryView['event_type'];
  status: DeliveryStatus;
  attempt: number;
  next_attempt_at: string;
  created_at: string;
}

interface AttemptRow {
  delivery_id: string;
  attempt: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
}

const DELIVERY_COLUMNS = `d.id::text AS id, d.public_id, d.endpoint_id, d.event_id::text AS event_id, e.type AS event_type, d.status, d.attempt,
  d.next_attempt_at, d.created_at`;

function notFound(deliveryId: string): DomainError {
  return new DomainError('ERR_WEBHOOK_404', 'Webhook delivery not found', { delivery_id: `no delivery ${deliveryId}` });
}

async function attemptsOf(deps: ServiceDeps, ids: readonly string[]): Promise<Map<string, AttemptRow[]>> {
  const byDelivery = new Map<string, AttemptRow[]>();
  if (ids.length === 0) return byDelivery;
  const { rows } = await deps.db.query<AttemptRow>(
    `SELECT delivery_id::text AS delivery_id, attempt, started_at, duration_ms, status_code, error FROM webhook_delivery_attempts
     WHERE delivery_id = ANY($1::bigint[]) ORDER BY delivery_id, attempt`,
    [ids],
  );
  for (const row of rows) byDelivery.set(row.delivery_id, [...(byDelivery.get(row.delivery_id) ?? []), row]);
  return byDelivery;
}

function deliveryView(d: DeliveryRow, attempts: readonly AttemptRow[]): DeliveryView {
  const waiting = d.status === 'pending' || d.status === 'delivering';
  return {
    id: d.public_id,
    endpoint_id: d.endpoint_id,
    event_id: d.event_id,
    event_type: d.event_type,
    webhook_id: `msg_${d.event_id}`,
    status: d.status,
    attempt_count: d.attempt,
    next_attempt_at: waiting ? d.next_attempt_at : null,
    created_at: d.created_at,
    attempts: attempts.map((a) => ({
      attempt: a.attempt,
      started_at: a.started_at,
      status_code: a.status_code,
      duration_ms: a.duration_ms,
      error: a.error,
    })),
  };
}

/** The deliveries of one endpoint the scope owns, newest first. Unknown / another tenant's endpoint => 404. */
export async function listWebhookDeliveries(
  deps: ServiceDeps,
  scope: Scope,
  endpointId: string,
  query: {
    status?: DeliveryStatus | undefined;
    page?: number | string | undefined;
    page_size?: number | string | undefined;
    cursor?: string | undefined;
  } = {},
): Promise<Page<DeliveryView>> {
  const missing = new DomainError('ERR_WEBHOOK_404', 'Webhook endpoint not found', { endpoint_id: `no endpoint ${endpointId}` });
  if (!ID_PATTERN.webhookEndpoint.test(endpointId)) throw missing;
  const owner = new Params();
  const { rows: owned } = await deps.db.query(
    `SELECT id FROM webhook_endpoints WHERE id = ${owner.add(endpointId)} AND ${ownerCondition(scope, owner)} AND deleted_at IS NULL`,
    owner.values,
  );
  if (owned.length === 0) throw missing;
  const req = pageRequest(query.page, query.page_size, DEFAULT_PAGE_SIZE.webhookDeliveries, query.cursor);
  const p = new Params();
  const where = [`d.endpoint_id = ${p.add(endpointId)}`];
  if (query.status !== undefined) {
    // a literal from the closed list, not a parameter: the generic plan of a prepared statement then still uses the
    // (endpoint, status) index instead of walking every delivery of the endpoint (D344 every list bounded by its page)
    if (!DELIVERY_STATUSES.includes(query.status)) throw validationError('status', `must be one of ${DELIVERY_STATUSES.join(', ')}`);
    where.push(`d.status = '${query.status}'`);
  }
  const cond = where.join(' AND ');
  const countValues = [...p.values];
  // Opaque cursors: the page key is (created_at, public_id), both shown on the delivery itself; the internal sequence
  // (d.id) would tell a merchant every tenant's delivery volume between two cursors
  const keyset = keysetClauses(req, 'd.created_at', 'd.public_id', p);
  const [count, { rows }] = await Promise.all([
    cappedCount(deps.db, `FROM webhook_deliveries d WHERE ${cond}`, countValues, 'd.created_at', 'd.public_id'),
    deps.db.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN events e ON e.sequence_number = d.event_id
       WHERE ${cond}${keyset.where ? ` AND ${keyset.where}` : ''} ${keyset.tail}`,
      p.values,
    ),
  ]);
  const attempts = await attemptsOf(
    deps,
    rows.slice(0, req.pageSize).map((r) => r.id),
  );
  return toPage(
    req,
    count,
    rows,
    (r) => ({ at: r.created_at, id: r.public_id }),
    (r) => deliveryView(r, attempts.get(r.id) ?? []),
  );
}

/**
 * Schedule a new attempt of a delivery now (on its event's merchant's clock), whatever its status; the worker sends it
 * with the same webhook-id. A deleted endpoint's or another tenant's delivery => 404 (D78 webhook deliveries list and redelivery).
 */
export async function redeliverWebhookDelivery(deps: ServiceDeps, scope: Scope, deliveryId: string): Promise<DeliveryView> {
  if (!ID_PATTERN.webhookDelivery.test(deliveryId)) throw notFound(deliveryId);
  const p = new Params();
  const now = p.add(formatIso(deps.clock.now()));
  const { rows } = await deps.db.query<{ id: string }>(
    `UPDATE webhook_deliveries d SET status = 'pending', next_attempt_at = ${merchantNowSql(now, 'e.merchant_id')},
            lease_expires_at = NULL, updated_at = ${merchantNowSql(now, 'e.merchant_id')}
     FROM webhook_endpoints w, events e
     WHERE d.public_id = ${p.add(deliveryId)} AND w.id = d.endpoint_id AND e.sequence_number = d.event_id
       AND w.deleted_at IS NULL AND ${ownerCondition(scope, p, 'w.')}
     RETURNING d.id::text AS id`,
    p.values,
  );
  const id = rows[0]?.id;
  if (id === undefined) throw notFound(deliveryId);
  // a redelivery by hand goes now: the endpoint's backoff does not hold it (it stays failing, so this is its probe; D342)
  await deps.db.query(
    `UPDATE webhook_endpoints SET retry_after = NULL WHERE id = (SELECT endpoint_id FROM webhook_deliveries WHERE id = $1::bigint) AND retry_after IS NOT NULL`,
    [id],
  );
  const { rows: current } = await deps.db.query<DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN events e ON e.sequence_number = d.event_id WHERE d.id = $1::bigint`,
    [id],
  );
  const attempts = await attemptsOf(deps, [id]);
  return deliveryView(current[0] as DeliveryRow, attempts.get(id) ?? []);
}
