import { existsSync } from 'node:fs';
import { copyFile, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadMigrations, migrate } from '../db/migrate.js';
import { openDb } from '../db/open.js';
import {
  ensureMigratedPgliteTemplate,
  PGLITE_MIGRATED_TEMPLATE_ENV,
  PGLITE_TEMPLATE_ENV,
  seedPgliteDataDir,
  usePgliteTemplate,
} from './pglite-template.js';

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe('the PGlite test templates (D138 test fixtures made once per run)', () => {
  it('the run made both: initdb output, and the same with every migration applied, named by the migrations', () => {
    const initialised = process.env[PGLITE_TEMPLATE_ENV];
    const migrated = process.env[PGLITE_MIGRATED_TEMPLATE_ENV];
    expect(initialised).toMatch(/\.tar$/);
    expect(migrated).toMatch(/-migrated-[0-9a-f]{16}\.tar$/);
    expect(migrated?.replace(/-migrated-[0-9a-f]{16}\.tar$/, '.tar')).toBe(initialised);
  });

  it('makes the migrated template once beside the initialised one, and reuses it while the migrations are the same', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'paygate-pglite-template-'));
    dirs.push(dir);
    const initialised = path.join(dir, 'pglite-initdb-test.tar');
    await copyFile(process.env[PGLITE_TEMPLATE_ENV]!, initialised);
    const first = await ensureMigratedPgliteTemplate(initialised);
    expect(path.dirname(first)).toBe(dir);
    const written = (await stat(first)).mtimeMs;
    expect(await ensureMigratedPgliteTemplate(initialised)).toBe(first);
    expect((await stat(first)).mtimeMs).toBe(written);
  });

  it('a database opened to be migrated starts current; one opened without migrations starts empty', async () => {
    await usePgliteTemplate();
    const migrated = await openDb({ dataDir: 'memory://template-migrated' });
    try {
      // nothing left to apply, and every migration is recorded, as if this database had run them
      expect(await migrate(migrated)).toEqual([]);
      const recorded = (await migrated.query<{ version: string }>('SELECT version FROM schema_migrations ORDER BY version')).rows;
      expect(recorded.map((r) => r.version)).toEqual((await loadMigrations()).map((m) => m.version).sort());
    } finally {
      await migrated.close();
    }
    const empty = await openDb({ dataDir: 'memory://template-empty', migrate: false });
    try {
      const tables = await empty.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'schema_migrations'`);
      expect(tables.rows[0]?.n).toBe(0);
    } finally {
      await empty.close();
    }
  });

  it('a data dir on disk seeded from the initialised template opens, migrates and keeps what it wrote across a restart', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'paygate-pglite-seeded-'));
    dirs.push(dir);
    const dataDir = path.join(dir, 'data');
    await seedPgliteDataDir(dataDir);
    // a data dir already: opening it runs no initdb (which would have made PG_VERSION itself)
    expect(existsSync(path.join(dataDir, 'PG_VERSION'))).toBe(true);
    await writeFile(path.join(dataDir, 'master.key'), "not PGlite's\n");
    const first = await openDb({ dataDir });
    try {
      expect((await first.query<{ n: number }>('SELECT count(*)::int AS n FROM schema_migrations')).rows[0]?.n).toBe(
        (await loadMigrations()).length,
      );
      await first.query(`CREATE TABLE seeded_probe (v text)`);
      await first.query(`INSERT INTO seeded_probe VALUES ('kept')`);
    } finally {
      await first.close();
    }
    const second = await openDb({ dataDir });
    try {
      expect((await second.query<{ v: string }>('SELECT v FROM seeded_probe')).rows).toEqual([{ v: 'kept' }]);
      expect(await migrate(second)).toEqual([]);
    } finally {
      await second.close();
    }
  });
});
