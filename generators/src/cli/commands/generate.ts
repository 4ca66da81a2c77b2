/** `paygate generate`: any OpenAPI 3.0/3.1 document into a project directory (or, in this repository, its packages). */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { generate, GenerateCache } from '../../pipeline.js';
import { writeFiles } from '../generate.js';
import { EXIT, type CliCommand, type CliIo } from '../command.js';
import { watchAndRegenerate } from '../watch.js';
import { runPipelineOrReport } from './run-pipeline.js';
import { loadSpecOptions, SPEC_FLAGS_USAGE, type SpecOptions } from './spec-options.js';

/** The override templates of a run (watch mode regenerates when one is saved). */
function templateFiles(dir: string | undefined): string[] {
  if (dir === undefined || !existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.hbs'))
    .map((f) => path.join(dir, f));
}

/** `--watch`: regenerate on every save until SIGINT/SIGTERM (or `signal`, for tests). */
export async function watchGenerate(options: SpecOptions, io: CliIo, signal?: AbortSignal): Promise<void> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  signal?.addEventListener('abort', stop, { once: true });
  if (signal === undefined) {
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  }
  const rootDocument = path.resolve(options.rootDir, options.generate.openapi);
  io.stderr(
    `Watching ${options.generate.openapi} and every file it references; Ctrl-C stops. Restart after changing the config or a plugin.\n`,
  );
  // D440: one cache for the session: a run after a save re-does what the saved bytes can reach, the rest is reused
  const cache = new GenerateCache();
  try {
    await watchAndRegenerate({
      cwd: options.rootDir,
      initialInputs: [rootDocument, ...templateFiles(options.generate.templatesOverrideDir)],
      signal: controller.signal,
      log: (line) => io.stderr(`${line}\n`),
      run: async () => {
        const result = await generate({ ...options.generate, cache });
        const { written } = await writeFiles(options.rootDir, result.files);
        const warnings = result.lintProblems.filter((p) => p.severity === 'warn').length + result.warnings.length;
        const names = written.length > 0 && written.length <= 3 ? ` (${written.join(', ')})` : '';
        return {
          inputs: [...result.inputFiles, ...templateFiles(options.generate.templatesOverrideDir)],
          summary: `${written.length} file(s) written${names}, ${result.files.length - written.length} unchanged${warnings > 0 ? `, ${warnings} warning(s)` : ''}`,
        };
      },
    });
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
  }
}

export const command: CliCommand = {
  name: 'generate',
  summary: 'generate the contract, server scaffold, client and webhook validators from an OpenAPI document',
  usage: `Usage: paygate generate [--input FILE] [--asyncapi FILE|none] [--out DIR] [--targets LIST] [--lint MODE] [--watch]

Generates TypeScript from an OpenAPI 3.0/3.1 document (and optionally an AsyncAPI 3.0 document):
  DIR/contract   types, the bundled document, the route table, enums and error codes, event types
  DIR/server     handler types and precompiled request validators (for createApiApp from @paygate/server)
  DIR/client     a typed client facade (runtime: @paygate/client)
  DIR/webhooks   webhook event validators (runtime: @paygate/webhooks)
The generated code imports the runtimes by package name: install @paygate/contract, @paygate/server,
@paygate/client and @paygate/webhooks beside it. Files are rewritten only when their contents change.

Plugins (the config's "plugins") write more files under DIR; they are checked by \`paygate check\` like the rest.

Flags:
${SPEC_FLAGS_USAGE}
  --watch               regenerate on every save of the document, a file it references or an override template;
                        one line per run; a broken save prints its error and the watch goes on (Ctrl-C stops)

Exit codes: 0 written, 1 the spec has errors (named with file:line), 2 bad flags, 3 a file is missing.

Example:
  npx paygate generate --input openapi.yaml --out src/generated`,
  async run(argv, io) {
    const watchMode = argv.includes('--watch');
    const options = await loadSpecOptions(
      argv.filter((a) => a !== '--watch'),
      io.cwd,
    );
    if (options.config.source !== undefined) io.stderr(`Config: ${options.config.source}\n`);
    if (watchMode) {
      await watchGenerate(options, io);
      return EXIT.ok;
    }
    const started = performance.now();
    const result = await runPipelineOrReport(options.generate, io, { lintDetails: options.lintDetails });
    if (result === undefined) return EXIT.failed;
    const { files } = result;
    const { written, unchanged } = await writeFiles(options.rootDir, files);
    for (const file of written) io.stdout(`wrote ${file}\n`);
    io.stderr(`${written.length} file(s) written, ${unchanged.length} unchanged, in ${(performance.now() - started).toFixed(0)} ms.\n`);
    return EXIT.ok;
  },
};
