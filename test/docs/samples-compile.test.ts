/**
 * Every TypeScript sample the docs show compiles against the client generated from the same spec (D385: samples that
 * never rot). Paygate's samples import the published `@paygate/client` (the spec's `info.x-client-package`) and are
 * type-checked in-process with the TypeScript compiler API under the repository's strict base tsconfig. Specs that are
 * not Paygate's (the Shelf fixture: bearer auth, its own errors; PayPal's Orders API: a real vendor spec) are generated
 * into a throwaway project as `paygate generate --out` would write it, their samples beside the generated client.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import type { OperationSamples } from '../../generators/src/emit/docs-samples.js';
import { generate, readDocsSources } from '../../generators/src/pipeline.js';
import { ROOT } from '../generators/fixtures.js';
import { compileProject, generateProject } from '../generators/support/compile-generated.js';

/** The docs' copy of the document (openapi.json, with the generated x-codeSamples) of a spec. */
async function docsSamples(openapi: string): Promise<OperationSamples[] & { modelOperations: string[] }> {
  const result = await generate({
    rootDir: ROOT,
    openapi,
    asyncapi: null,
    lint: 'skip',
    targets: ['docs'],
    out: { docs: 'site' },
    docs: { ...readDocsSources(ROOT), errorsMarkdown: undefined },
  });
  const site = result.files.find((f) => f.path === 'site/openapi.json');
  if (site === undefined) throw new Error('the docs target wrote no openapi.json');
  const document = JSON.parse(site.contents) as {
    paths: Record<string, Record<string, { operationId: string; 'x-codeSamples'?: unknown }>>;
  };
  // read back from what the site serves, so the test sees exactly what a reader copies
  const out: OperationSamples[] = [];
  for (const [p, item] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (Array.isArray(op['x-codeSamples']))
        out.push({ operationId: op.operationId, method, path: p, samples: op['x-codeSamples'] as never });
    }
  }
  return Object.assign(out, { modelOperations: result.model.operations.map((o) => o.operationId) });
}

/** The TypeScript sample of each operation, keyed by operationId. */
function typescriptSamples(samples: readonly OperationSamples[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const op of samples) {
    const ts = op.samples.find((s) => s.lang === 'TypeScript');
    if (ts !== undefined) map.set(op.operationId, ts.source);
  }
  return map;
}

/** Type-checks files (absolute path -> text, held in memory) with the compiler API; returns formatted diagnostics. */
function typeCheck(files: ReadonlyMap<string, string>, options: ts.CompilerOptions): string[] {
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  host.readFile = (file) => files.get(path.resolve(file)) ?? readFile(file);
  host.fileExists = (file) => files.has(path.resolve(file)) || fileExists(file);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (file, language, onError, create) => {
    const text = files.get(path.resolve(file));
    return text === undefined ? getSourceFile(file, language, onError, create) : ts.createSourceFile(file, text, language);
  };
  const program = ts.createProgram({ rootNames: [...files.keys()], options, host });
  return ts
    .getPreEmitDiagnostics(program)
    .filter((d) => d.file === undefined || files.has(path.resolve(d.file.fileName)))
    .map((d) => ts.formatDiagnostic(d, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => ROOT, getNewLine: () => '\n' }));
}

function repoCompilerOptions(): ts.CompilerOptions {
  const config = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile.bind(ts.sys));
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, ROOT);
  return { ...parsed.options, noEmit: true, skipLibCheck: true, noUnusedLocals: false };
}

describe("the docs' TypeScript samples compile against the generated client", () => {
  it("every operation of Paygate's spec has a curl and a TypeScript sample, and every TypeScript sample type-checks (in-process tsc)", async () => {
    const samples = await docsSamples('openapi/openapi.yaml');
    expect(samples.length).toBeGreaterThanOrEqual(30);
    expect(samples.map((s) => s.operationId).sort()).toEqual([...samples.modelOperations].sort());
    for (const op of samples)
      expect(
        op.samples.map((s) => s.label),
        op.operationId,
      ).toEqual(['curl', '@paygate/client']);
    const sources = typescriptSamples(samples);
    // the files sit in the repository (an ignored folder), so `@paygate/client` resolves as it does for a project using it
    const dir = path.join(ROOT, '.paygate/docs-samples');
    const files = new Map([...sources].map(([id, text]) => [path.join(dir, `${id}.ts`), text] as const));
    const diagnostics = typeCheck(files, repoCompilerOptions());
    expect(diagnostics.join('\n')).toBe('');
  }, 300_000);

  // not Paygate's: the samples import the client `paygate generate --out DIR` wrote (./client/client.gen.js in DIR)
  it.each([
    ['Shelf fixture', 'test/fixtures/shelf/openapi.yaml'],
    ["PayPal's Orders API", 'test/fixtures/realworld/paypal-checkout-orders/openapi.json'],
  ])(
    '%s: every TypeScript sample type-checks against its generated client',
    async (label, openapi) => {
      const samples = await docsSamples(openapi);
      expect(samples.map((s) => s.operationId).sort()).toEqual([...samples.modelOperations].sort());
      const dir = await mkdtemp(path.join(tmpdir(), 'paygate-samples-'));
      try {
        await generateProject({ openapi, targets: ['contract', 'client'], label: 'samples', dir });
        for (const [id, text] of typescriptSamples(samples)) {
          expect(text, id).toContain(`from "./client/client.gen.js"`);
          await writeFile(path.join(dir, 'generated', `sample-${id.replace(/[^A-Za-z0-9_-]/g, '_')}.ts`), text);
        }
        const { tscCode, diagnostics } = await compileProject(dir, ['generated']);
        expect(diagnostics, label).toBe('');
        expect(tscCode).toBe(0);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    300_000,
  );
});
