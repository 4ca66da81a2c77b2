import { hash } from 'node:crypto';
import type { Db } from '../db/db.js';
import { DomainError } from '../core/errors.js';
import { systemClock, type Micros } from '../core/clock.js';
import { verifyCredential, type VerifiedCredential } from './service.js';

/** The channel the `credentials` trigger (migration 008) notifies with the changed client id. */
export const CREDENTIAL_CHANNEL = 'paygate_credentials';

/** Most cached verifications kept; the oldest go first (a bound on memory, not a policy). */
const MAX_ENTRIES = 10_000;

export interface CredentialCacheOptions {
  /** How long a verification may be reused (ms); 0 turns the cache off (every request reads the database). */
  ttlMs: number;
  /** The gateway's clock (microseconds). */
  now?: () => Micros;
  /** The check a cache miss runs (default: verifyCredential on `db`). */
  verify?: (clientId: string, clientSecret: string, now: Micros) => Promise<VerifiedCredential>;
  maxEntries?: number;
  /**
   * Also poll the cached credentials' row versions every `pollMs` (D352, "Notifications through a transaction pooler:
   * a direct connection or polling"): where notifications may be lost without any error (DATABASE_URL is a
   * transaction pooler and no DATABASE_DIRECT_URL was given), a change is noticed within two polls. Unset: LISTEN only.
   */
  pollMs?: number;
}

/** Poll interval of the credential cache when notifications cannot be trusted (D352 notifications through a pooler: direct or polling). */
export const CREDENTIAL_POLL_MS = 500;

interface Entry {
  clientId: string;
  credential: VerifiedCredential;
  /** The earliest of now + TTL and the secret's validUntil. */
  expiresAt: Micros;
  /** Polls completed when its verification started (D352: which row version it may be checked against). */
  polledBefore: number;
}

/** A credential row's version (xmin: a new one on every UPDATE) read by a poll, and which poll read it. */
interface Baseline {
  version: string;
  poll: number;
}

/**
 * Credential verification with a per-process cache (D67 verified credentials cached briefly), so a read costs one database round trip (the resource),
 * not two. Keyed by client id and the SHA-256 of the presented secret (the secret itself is never kept). An entry
 * lives at most `ttlMs` and never past the secret's `validUntil` (D36 credential rotation with an overlap window). Only successes are cached: a wrong secret
 * always reaches the database.
 *
 * Revocation and rotation reach every process through the database: the `credentials` trigger notifies
 * {@link CREDENTIAL_CHANNEL} on commit and each process drops that client id (PostgreSQL: LISTEN on its own
 * connection; PGlite: the embedded database's listener). The cache answers only while that listener is connected:
 * when it drops, the cache is flushed and bypassed until LISTEN is back (and flushed again then, since notifications
 * sent in between are lost). So a revoked secret stops working everywhere when the notification arrives (milliseconds)
 * and, should a connection die silently (no error yet), at most `ttlMs` after the change.
 *
 * A lookup that started before an invalidation is not stored (the `generation` check): it may have read the row
 * as it was before the change.
 */
export class CredentialCache {
  private readonly entries = new Map<string, Entry>();
  private readonly ttl: Micros;
  private readonly now: () => Micros;
  private readonly verifyMiss: (clientId: string, clientSecret: string, now: Micros) => Promise<VerifiedCredential>;
  private readonly maxEntries: number;
  private generation = 0;
  private live = false;
  private stopListening: (() => Promise<void>) | undefined;
  private readonly pollMs: number | undefined;
  private pollTimer: NodeJS.Timeout | undefined;
  /** Polls completed; whether the last one succeeded (then the cache may answer without a listener). */
  private polls = 0;
  private polled = false;
  private baselines = new Map<string, Baseline>();

  constructor(
    private readonly db: Db,
    options: CredentialCacheOptions,
  ) {
    this.ttl = options.ttlMs * 1000;
    this.now = options.now ?? (() => systemClock.now());
    this.verifyMiss = options.verify ?? ((id, secret, now) => verifyCredential(db, id, secret, now));
    this.maxEntries = options.maxEntries ?? MAX_ENTRIES;
    this.pollMs = options.pollMs;
  }

  /** Start listening for credential changes; until it is connected the cache is bypassed. */
  async start(): Promise<void> {
    if (this.ttl <= 0 || this.stopListening || this.pollTimer) return;
    if (this.pollMs !== undefined) {
      this.schedulePoll();
      try {
        await this.listen();
      } catch {
        // no notifications here (a transaction pooler without DATABASE_DIRECT_URL): the poll alone keeps it right
      }
      return;
    }
    await this.listen();
  }

  private async listen(): Promise<void> {
    this.stopListening = await this.db.listen(CREDENTIAL_CHANNEL, {
      onNotify: (clientId) => this.invalidate(clientId),
      onReady: () => {
        this.flush();
        this.live = true;
      },
      onLost: () => {
        this.live = false;
        this.flush();
      },
    });
  }

  async stop(): Promise<void> {
    const stop = this.stopListening;
    this.stopListening = undefined;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    this.pollTimer = undefined;
    this.live = false;
    this.polled = false;
    this.flush();
    await stop?.();
  }

  /** Whether cached answers are served (a listener is connected, or the last poll succeeded; and the TTL is above 0). */
  get serving(): boolean {
    return (this.live || this.polled) && this.ttl > 0;
  }

  private schedulePoll(): void {
    this.pollTimer = setTimeout(() => {
      void this.poll().finally(() => {
        if (this.pollTimer !== undefined) this.schedulePoll();
      });
    }, this.pollMs);
    this.pollTimer.unref();
  }

  /**
   * One poll (D352 notifications through a pooler: direct or polling): read the row version of every cached client id and keep an entry only when its row is unchanged
   * since a poll that completed before the entry's verification started (so that poll's version is at most as new as
   * what the verification read). An entry that cannot be checked yet (its client id had no such poll) is dropped and
   * verified again, to be checked by the next poll. A failed poll flushes and stops serving until one succeeds.
   */
  async poll(): Promise<void> {
    const ids = [...new Set([...this.entries.values()].map((e) => e.clientId))];
    let current: Map<string, string>;
    try {
      const { rows } =
        ids.length === 0
          ? { rows: [] }
          : await this.db.query<{ client_id: string; version: string }>(
              'SELECT client_id, xmin::text AS version FROM credentials WHERE client_id = ANY($1::text[])',
              [ids],
            );
      current = new Map(rows.map((r) => [r.client_id, r.version]));
    } catch {
      this.polled = false;
      this.flush();
      return;
    }
    let changed = false;
    for (const [key, entry] of this.entries) {
      const base = this.baselines.get(entry.clientId);
      const now = current.get(entry.clientId);
      if (base !== undefined && base.poll <= entry.polledBefore && now === base.version) continue;
      this.entries.delete(key);
      if (base !== undefined && now !== base.version) changed = true;
    }
    // a verification in flight may have read the row before the change this poll found: it is not stored
    if (changed) this.generation++;
    this.polls++;
    // a version seen unchanged keeps the poll that first saw it: an entry checked against it stays checkable
    const previous = this.baselines;
    this.baselines = new Map(
      [...current].map(([id, version]) => {
        const kept = previous.get(id);
        return [id, kept?.version === version ? kept : { version, poll: this.polls }];
      }),
    );
    this.polled = true;
  }

  /** Number of cached verifications (for tests and diagnostics). */
  get size(): number {
    return this.entries.size;
  }

  /** The same answers as verifyCredential (same errors), from the cache when it holds a live entry. */
  async verify(clientId: string | undefined, clientSecret: string | undefined): Promise<VerifiedCredential> {
    if (!clientId || !clientSecret) throw new DomainError('ERR_AUTH_000', 'Missing credentials');
    const now = this.now();
    if (!this.serving) return this.verifyMiss(clientId, clientSecret, now);
    // the one-shot hash (no Hash object, digest straight to base64): the same SHA-256 as hashSecret
    const key = `${clientId}\u0000${hash('sha256', clientSecret, 'base64')}`;
    const hit = this.entries.get(key);
    if (hit) {
      if (hit.expiresAt > now) return hit.credential;
      this.entries.delete(key);
    }
    const generation = this.generation;
    const polledBefore = this.polls;
    const credential = await this.verifyMiss(clientId, clientSecret, now);
    if (generation === this.generation && this.serving) {
      const expiresAt = credential.validUntil !== null && credential.validUntil < now + this.ttl ? credential.validUntil : now + this.ttl;
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
      this.entries.set(key, { clientId, credential, expiresAt, polledBefore });
    }
    return credential;
  }

  /** Drop every cached verification of `clientId` (a notification: its row changed). */
  invalidate(clientId: string): void {
    this.generation++;
    for (const [key, entry] of this.entries) if (entry.clientId === clientId) this.entries.delete(key);
  }

  /** Drop everything (the listener connected, reconnected or was lost). */
  flush(): void {
    this.generation++;
    this.entries.clear();
  }
}
