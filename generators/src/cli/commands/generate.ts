/** `paygate generate`: any OpenAPI 3.0/3.1 document into a project directory (or, in this repository, its packages). */
import { writeFiles } from '../generate.js';
import { EXIT, type CliCommand } from '../command.js';
import { runPipelineOrReport } from './run-pipeline.js';
import { parseSpecOptions, SPEC_FLAGS_USAGE } from './spec-options.js';

export const command: CliCommand = {
  name: 'generate',
  summary: 'generate the contract, server scaffold, client and webhook validators from an OpenAPI document',
  usage: `Usage: paygate generate [--input FILE] [--asyncapi FILE|none] [--out DIR] [--targets LIST] [--lint MODE]

Generates TypeScript from an OpenAPI 3.0/3.1 document (and optionally an AsyncAPI 3.0 document):
  DIR/contract   types, the bundled document, the route table, enums and error codes, event types
  DIR/server     handler types and precompiled request validators (for createApiApp from @paygate/server)
  DIR/client     a typed client facade (runtime: @paygate/client)
  DIR/webhooks   webhook event validators (runtime: @paygate/webhooks)
The generated code imports the runtimes by package name: install @paygate/contract, @paygate/server,
@paygate/client and @paygate/webhooks beside it. Files are rewritten only when their contents change.

Flags:
${SPEC_FLAGS_USAGE}

Exit codes: 0 written, 1 the spec has errors (named with file:line), 2 bad flags, 3 a file is missing.

Example:
  npx paygate generate --input openapi.yaml --out src/generated`,
  async run(argv, io) {
    const options = parseSpecOptions(argv, io.cwd);
    const started = performance.now();
    const result = await runPipelineOrReport(options.generate, io);
    if (result === undefined) return EXIT.failed;
    const { files } = result;
    const { written, unchanged } = await writeFiles(options.rootDir, files);
    for (const file of written) io.stdout(`wrote ${file}\n`);
    io.stderr(`${written.length} file(s) written, ${unchanged.length} unchanged, in ${(performance.now() - started).toFixed(0)} ms.\n`);
    return EXIT.ok;
  },
};
