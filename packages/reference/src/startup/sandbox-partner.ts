import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export interface SandboxPartner {
  clientId: string;
  clientSecret: string;
  /** Where they are kept (undefined for an in-memory database: they last as long as the process). */
  file: string | undefined;
  created: boolean;
}

/**
 * The sandbox partner credential: `<dataDir>/sandbox-partner.json` (mode 0600) is read, or created with random
 * `pk_test_...` / `ps_test_...` values. For `memory://` data dirs nothing is written.
 */
export async function loadOrCreateSandboxPartner(dataDir: string): Promise<SandboxPartner> {
  const fresh = () => ({
    clientId: `pk_test_${randomBytes(12).toString('base64url')}`,
    clientSecret: `ps_test_${randomBytes(32).toString('base64url')}`,
  });
  if (dataDir.startsWith('memory://')) return { ...fresh(), file: undefined, created: true };
  const file = path.resolve(dataDir, 'sandbox-partner.json');
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as { client_id?: unknown; client_secret?: unknown };
    if (typeof parsed.client_id === 'string' && typeof parsed.client_secret === 'string' && parsed.client_secret.length >= 16) {
      await chmod(file, 0o600).catch(() => undefined);
      return { clientId: parsed.client_id, clientSecret: parsed.client_secret, file, created: false };
    }
    throw new Error(`${file} does not hold client_id and client_secret; delete it to generate new sandbox credentials`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const creds = fresh();
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, `${JSON.stringify({ client_id: creds.clientId, client_secret: creds.clientSecret }, null, 2)}\n`, {
    mode: 0o600,
    flag: 'wx',
  });
  return { ...creds, file, created: true };
}

/**
 * The start-up lines about the sandbox partner credential. The secret is printed once, by the start that generated it
 * (whatever HOST is); later starts print the client id and where the secret is kept, so it does not land in every log
 * (D39 sandbox generates its partner credential). An in-memory database gets a new credential, printed, on every start: there is nowhere else to find it.
 */
export function sandboxPartnerLines(partner: SandboxPartner): string[] {
  if (!partner.created) {
    return [
      `  Sandbox partner credentials: X-Client-ID ${partner.clientId}`,
      `    X-Client-Secret: shown when it was generated; read it from ${partner.file ?? 'the credentials file'} (client_secret, mode 0600).`,
      '    Delete the file to generate new ones (shown once, at that start).',
    ];
  }
  return [
    '  Sandbox partner credentials (send as headers; the secret is shown this once):',
    `    X-Client-ID:     ${partner.clientId}`,
    `    X-Client-Secret: ${partner.clientSecret}`,
    partner.file
      ? `  Generated and saved in ${partner.file} (mode 0600); later starts print only the client id.`
      : '  The database is in memory: these credentials last as long as this process.',
  ];
}
