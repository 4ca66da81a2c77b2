import path from 'node:path';
import type { ReferenceConfig } from '../core/config.js';

/** The database a start opens, as the start-up lines name it (never the password of DATABASE_URL). */
export function describeDatabase(config: ReferenceConfig): string {
  if (config.databaseUrl) {
    try {
      const u = new URL(config.databaseUrl);
      return `PostgreSQL at ${u.hostname}${u.port ? `:${u.port}` : ''}${u.pathname} (DATABASE_URL)`;
    } catch {
      return 'PostgreSQL (DATABASE_URL)';
    }
  }
  return config.dataDir.startsWith('memory://') ? 'in-memory PGlite (nothing is kept)' : `PGlite at ${path.resolve(config.dataDir)}`;
}

/** What to do next when the start failed: a database that cannot be reached is named, with the settings to check. */
export function startupHint(err: unknown, config: ReferenceConfig): string {
  const e = err as NodeJS.ErrnoException & { code?: string };
  const code = e?.code ?? '';
  if (
    config.databaseUrl &&
    /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|28P01|28000|3D000/.test(`${code} ${String(e?.message)}`)
  ) {
    return (
      `Could not connect to the database named by DATABASE_URL (${describeDatabase(config)}): ${e.message}\n` +
      'Check that PostgreSQL is running and reachable and that DATABASE_URL (host, port, user, password, database) is right, ' +
      'or unset DATABASE_URL to use the embedded PGlite database.'
    );
  }
  return `Start-up failed: ${e?.message ?? String(err)}`;
}
