/**
 * The published shape, as a newcomer gets it: `npm pack` of every package, the tarballs installed into a fresh project
 * OUTSIDE this repository (no workspace links) with `npm ci --offline` from a lockfile that pins every other package
 * at the version this repository installs (./support/consumer-lock.ts, which also fails on a declared range the
 * repository's versions no longer meet; the registry only when the local npm cache lacks one), then in that project:
 * `npx paygate generate` on a spec of its own, a strict TypeScript consumer of the generated server and client (and
 * of an OpenAPI 3.0 document's) compiled with tsc, the generated server started with one handler and called through
 * the generated client, the installed client bundled for the browser, and the installed reference gateway
 * (`npx paygate serve`) checked by the installed contract suite (`npx paygate contract`).
 * Slow (about half a minute after the build); progress is printed.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, describe, expect, it } from 'vitest';
import { buildOnce } from '../support/build.js';
import { consumerLock, type Lockfile } from './support/consumer-lock.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PACKAGES = [
  '@paygate/contract',
  '@paygate/server',
  '@paygate/client',
  '@paygate/webhooks',
  '@paygate/reference',
  '@paygate/contract-tests',
  '@paygate/cli',
];
/** What a consumer adds besides the tarballs: the compiler and Node types for its own code, ajv for the precompiled validators. */
const CONSUMER_DEPENDENCIES = ['typescript@~5.9.3', '@types/node@^20', 'ajv@^8.20.0'];
const started = performance.now();

const progress = (message: string) =>
  process.stdout.write(`[pack-install ${((performance.now() - started) / 1000).toFixed(0).padStart(3)} s] ${message}\n`);

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(command, args, { cwd, env: { ...process.env, ...env }, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr });
    });
  });
}

async function mustRun(label: string, command: string, args: string[], cwd: string): Promise<Run> {
  progress(label);
  const result = await run(command, args, cwd);
  if (result.code !== 0) throw new Error(`${label} failed (exit ${result.code}):\n${result.stdout}\n${result.stderr}`);
  return result;
}

const SPEC = `openapi: 3.1.0
info:
  title: Greeter
  version: 1.0.0
  license: { name: MIT, identifier: MIT }
paths:
  /greetings/{name}:
    get:
      operationId: getGreeting
      summary: Greet someone
      tags: [greetings]
      parameters:
        - name: name
          in: path
          required: true
          schema: { type: string, minLength: 1, maxLength: 40 }
      responses:
        '200':
          description: The greeting
          content:
            application/json:
              schema:
                type: object
                required: [message]
                properties:
                  message: { type: string }
        '400':
          description: The name is not valid
          content:
            application/json:
              schema:
                type: object
                properties:
                  message: { type: string }
`;

/** An OpenAPI 3.0 document with what 3.1 spells differently (nullable, exclusiveMinimum as a flag) plus a body, a query and an API key. */
const SPEC_30 = `openapi: 3.0.3
info:
  title: Inventory
  version: 2.0.0
components:
  securitySchemes:
    apiKey: { type: apiKey, in: header, name: X-Api-Key }
  schemas:
    Item:
      type: object
      required: [sku, quantity]
      properties:
        sku: { type: string, pattern: '^[A-Z0-9-]{3,20}$' }
        quantity: { type: integer, minimum: 0, exclusiveMinimum: true }
        note: { type: string, nullable: true }
security:
  - apiKey: []
paths:
  /items:
    get:
      operationId: listItems
      tags: [items]
      parameters:
        - { name: limit, in: query, schema: { type: integer, minimum: 1, maximum: 50, default: 10 } }
      responses:
        '200':
          description: Items
          content:
            application/json:
              schema: { type: array, items: { $ref: '#/components/schemas/Item' } }
    post:
      operationId: createItem
      tags: [items]
      requestBody:
        required: true
        content:
          application/json:
            schema: { $ref: '#/components/schemas/Item' }
      responses:
        '201':
          description: Created
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Item' }
`;

/** Type-checks against the 3.0 output: the generated handler and client types are usable as written. */
const INVENTORY = `import type { Handlers } from './generated-30/server/handlers.gen.js';
import { createInventoryClient } from './generated-30/client/index.js';

export const inventoryHandlers: Handlers = {
  async listItems(req) {
    const limit: number | undefined = req.query.limit;
    return { status: 200, body: [{ sku: 'ABC-1', quantity: limit ?? 1, note: null }] };
  },
  async createItem(req) {
    return { status: 201, body: req.body };
  },
};

export async function restock(baseUrl: string): Promise<number> {
  const inventory = createInventoryClient({ baseUrl, auth: { apiKey: 'key' } });
  const created = await inventory.items.create({ sku: 'ABC-2', quantity: 3 });
  return created.ok ? created.data.quantity : 0;
}
`;

const SERVER = `import { createApiApp } from '@paygate/server';
import { apiDocument, operations, securitySchemes } from './generated/contract/index.js';
import type { Handlers } from './generated/server/handlers.gen.js';
import { requestValidators } from './generated/server/request-validators.gen.js';

const handlers: Handlers = {
  async getGreeting(req) {
    return { status: 200, body: { message: \`Hello, \${req.params.name}!\` } };
  },
};

export const app = createApiApp<Handlers>({ apiDocument, operations, securitySchemes, requestValidators }, { handlers });
`;

const MAIN = `import type { AddressInfo } from 'node:net';
import { buildWebhookHeaders, generateWebhookSecret, Webhook } from '@paygate/webhooks';
import { createGreeterClient } from './generated/client/index.js';
import { app } from './server.js';

// @paygate/webhooks in Node 20: a signed delivery verifies with the same secret.
const secret = generateWebhookSecret();
const payload = JSON.stringify({ event_type: 'GREETED', data: { name: 'Ada' } });
const webhookHeaders = buildWebhookHeaders({ secret, msgId: 'msg_1', timestamp: new Date(), payload });
const verified = new Webhook(secret).verify(payload, { ...webhookHeaders });

const server = app.listen(0, '127.0.0.1');
await new Promise<void>((resolve) => server.once('listening', () => resolve()));
const { port } = server.address() as AddressInfo;
const greeter = createGreeterClient({ baseUrl: \`http://127.0.0.1:\${port}\`, maxRetries: 0 });
const ok = await greeter.greetings.get('Ada');
const invalid = await greeter.greetings.get('x'.repeat(41));
server.close();
if (!ok.ok) throw new Error(\`the call failed: \${JSON.stringify(ok.error)}\`);
const message: string = ok.data.message;
console.log(JSON.stringify({ message, invalidStatus: invalid.ok ? 200 : invalid.status, webhook: verified }));
`;

const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noUncheckedIndexedAccess: true,
    verbatimModuleSyntax: true,
    skipLibCheck: false,
    types: ['node'],
    rootDir: 'src',
    outDir: 'dist',
  },
  include: ['src'],
};

/** A port nothing listens on right now (the gateway is started on it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/** Resolves once the gateway prints that it is running; rejects with its output when it exits first. */
function gatewayReady(gateway: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Paygate is running')) resolve();
    };
    gateway.stdout?.on('data', onData);
    gateway.stderr?.on('data', onData);
    gateway.once('exit', (code) => reject(new Error(`paygate serve exited (${String(code)}) before it was ready:\n${output}`)));
  });
}

let workDir: string | undefined;
let gateway: ChildProcess | undefined;
afterAll(async () => {
  if (gateway !== undefined && gateway.exitCode === null) {
    const exited = new Promise((resolve) => gateway!.once('exit', resolve));
    gateway.kill('SIGTERM');
    await exited;
  }
  if (workDir !== undefined) await rm(workDir, { recursive: true, force: true });
});

describe('packed packages in a fresh project', () => {
  it('install, generate, compile a strict consumer, serve one handler and call it with the generated client', {
    timeout: 600_000,
  }, async () => {
    workDir = await mkdtemp(path.join(tmpdir(), 'paygate-pack-'));
    const tarballs = path.join(workDir, 'tarballs');
    const project = path.join(workDir, 'greeter');
    await mkdir(tarballs);
    await mkdir(path.join(project, 'src'), { recursive: true });

    progress('building the packages (npm run build, serialised with the other tests that build)');
    await buildOnce();
    const packed = await mustRun(
      `packing ${PACKAGES.join(', ')}`,
      'npm',
      ['pack', '--json', '--pack-destination', tarballs, ...PACKAGES.flatMap((p) => ['-w', p])],
      ROOT,
    );
    const packs = JSON.parse(packed.stdout) as { name: string; filename: string; integrity: string }[];
    expect(packs.map((p) => p.name).sort()).toEqual([...PACKAGES].sort());
    const files = (await readdir(tarballs)).filter((f) => f.endsWith('.tgz')).sort();
    expect(files).toHaveLength(PACKAGES.length);

    const dependencies = Object.fromEntries(
      CONSUMER_DEPENDENCIES.map((d) => {
        const at = d.lastIndexOf('@');
        return [d.slice(0, at), d.slice(at + 1)];
      }),
    );
    const tarballSpecs = Object.fromEntries(
      packs.map((p) => [p.name, { spec: `file:../tarballs/${path.basename(p.filename)}`, integrity: p.integrity }]),
    );
    const repoLock = JSON.parse(await readFile(path.join(ROOT, 'package-lock.json'), 'utf8')) as Lockfile;
    const lockfile = consumerLock(repoLock, tarballSpecs, dependencies, 'greeter');
    await writeFile(
      path.join(project, 'package.json'),
      `${JSON.stringify({ name: 'greeter', private: true, type: 'module', dependencies: lockfile.packages['']?.dependencies }, null, 2)}\n`,
    );
    await writeFile(path.join(project, 'package-lock.json'), `${JSON.stringify(lockfile, null, 2)}\n`);
    progress(
      `installing the tarballs offline (npm ci --offline: ${Object.keys(lockfile.packages).length - 1} packages locked at this repository's versions, from the local npm cache)`,
    );
    let installed = await run('npm', ['ci', '--offline', '--no-audit', '--no-fund'], project);
    if (installed.code !== 0) {
      // a cache that lacks a tarball (cleaned, or another machine's install): the registry for what is missing
      progress(
        `the npm cache lacks a locked package (${installed.stderr.split('\n').find((l) => /npm error/.test(l)) ?? 'npm ci failed'}): npm ci --prefer-offline`,
      );
      installed = await run('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], project);
    }
    expect(
      installed.stderr
        .split('\n')
        .filter((line) => /npm error/.test(line))
        .join('\n'),
    ).toBe('');
    expect(installed.code).toBe(0);

    // Every @paygate package is a real directory from its tarball, never a link into this repository.
    const lock = JSON.parse(await readFile(path.join(project, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { resolved?: string; link?: boolean }>;
    };
    for (const name of PACKAGES) {
      const entry = lock.packages[`node_modules/${name}`];
      expect(entry?.link, `${name} is linked`).toBeUndefined();
      expect(entry?.resolved ?? '', `${name} comes from its tarball`).toMatch(/^file:.*\.tgz$/);
    }
    for (const name of PACKAGES) {
      const manifest = JSON.parse(await readFile(path.join(project, 'node_modules', name, 'package.json'), 'utf8')) as {
        private?: boolean;
        license?: string;
      };
      expect(manifest.private).toBeUndefined();
      expect(manifest.license).toBe('MIT');
      const shipped = await readdir(path.join(project, 'node_modules', name), { recursive: true });
      expect(
        shipped.filter((f) => /\.test\.|(^|\/)src\/|\.tsbuildinfo$/.test(String(f))),
        `${name} ships tests or sources`,
      ).toEqual([]);
      expect(shipped).toContain('LICENSE');
      expect(shipped).toContain('README.md');
    }

    await writeFile(path.join(project, 'openapi.yaml'), SPEC);
    const generated = await mustRun(
      'npx paygate generate --input openapi.yaml --out src/generated',
      'npx',
      ['--no-install', 'paygate', 'generate', '--input', 'openapi.yaml', '--out', 'src/generated'],
      project,
    );
    expect(generated.stdout).toContain('wrote src/generated/server/handlers.gen.ts');

    await writeFile(path.join(project, 'openapi-30.yaml'), SPEC_30);
    await mustRun(
      'npx paygate generate --input openapi-30.yaml --out src/generated-30 (OpenAPI 3.0)',
      'npx',
      ['--no-install', 'paygate', 'generate', '--input', 'openapi-30.yaml', '--out', 'src/generated-30'],
      project,
    );
    await writeFile(path.join(project, 'src/inventory.ts'), INVENTORY);
    await writeFile(path.join(project, 'src/server.ts'), SERVER);
    await writeFile(path.join(project, 'src/main.ts'), MAIN);
    await writeFile(path.join(project, 'tsconfig.json'), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
    for (const dir of ['src/generated', 'src/generated-30']) {
      for (const file of await readdir(path.join(project, dir), { recursive: true })) {
        if (!String(file).endsWith('.ts')) continue;
        expect(
          await readFile(path.join(project, dir, String(file)), 'utf8'),
          `${dir}/${file} names a path into the repository`,
        ).not.toContain(ROOT);
      }
    }
    await mustRun(
      'compiling the strict consumer (tsc -p tsconfig.json, skipLibCheck false)',
      'npx',
      ['--no-install', 'tsc', '-p', 'tsconfig.json'],
      project,
    );

    const served = await mustRun(
      'starting the generated server and calling it with the generated client',
      process.execPath,
      ['dist/main.js'],
      project,
    );
    expect(JSON.parse(served.stdout.trim())).toEqual({
      message: 'Hello, Ada!',
      invalidStatus: 400,
      webhook: { event_type: 'GREETED', data: { name: 'Ada' } },
    });

    const help = await mustRun('npx paygate --help', 'npx', ['--no-install', 'paygate', '--help'], project);
    expect(help.stdout).toContain('paygate serve --help'); // one screen: the gateway's variables are under serve --help
    const serveHelp = await mustRun('npx paygate serve --help', 'npx', ['--no-install', 'paygate', 'serve', '--help'], project);
    expect(serveHelp.stdout).toContain('PAYGATE_MODE');

    progress('bundling the installed @paygate/client for the browser (esbuild)');
    const bundle = await build({
      stdin: {
        contents: `export { createPaygateClient } from '@paygate/client';\nexport { createGreeterClient } from './src/generated/client/index.js';`,
        resolveDir: project,
        loader: 'ts',
      },
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
    const imports = Object.values(bundle.metafile.inputs).flatMap((input) => input.imports.map((i) => i.path));
    expect(imports.filter((specifier) => builtins.has(specifier))).toEqual([]);
    expect(Object.keys(bundle.metafile.inputs)).toEqual(
      expect.arrayContaining([expect.stringMatching(/node_modules\/@paygate\/client\/dist\/browser\.js$/)]),
    );
    const port = await freePort();
    const partner = { id: 'pk_test_packaged', secret: 'ps_test_packaged_secret_0001' };
    progress(`npx paygate serve on port ${port} (the installed reference gateway, in-memory PGlite)`);
    gateway = spawn(process.execPath, [path.join(project, 'node_modules/@paygate/cli/bin/paygate.js'), 'serve'], {
      cwd: project,
      env: {
        ...process.env,
        PORT: String(port),
        PAYGATE_DATA_DIR: 'memory://packaged',
        PAYGATE_PARTNER_CLIENT_ID: partner.id,
        PAYGATE_PARTNER_CLIENT_SECRET: partner.secret,
        PAYGATE_RATE_LIMIT: '100000',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    await gatewayReady(gateway);
    const junit = path.join(project, 'reports/contract.xml');
    const contract = await mustRun(
      'npx paygate contract --only client,statuses --junit reports/contract.xml (the installed @paygate/contract-tests)',
      'npx',
      [
        '--no-install',
        'paygate',
        'contract',
        '--base-url',
        `http://127.0.0.1:${port}`,
        '--client-id',
        partner.id,
        '--client-secret',
        partner.secret,
        '--only',
        'client,statuses',
        '--junit',
        junit,
      ],
      project,
    );
    expect(contract.stderr).toContain('The deployment conforms to the spec.');
    expect(await readFile(junit, 'utf8')).toMatch(/<testsuites name="vitest tests" tests="[1-9]\d*" failures="0" errors="0"/);
    progress('done');
  });
});
