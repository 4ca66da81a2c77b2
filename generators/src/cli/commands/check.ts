/** `paygate check`: regenerates in memory and fails naming every committed file that drifted from the spec. */
import { compareWithDisk } from '../generate.js';
import { EXIT, type CliCommand } from '../command.js';
import { runPipelineOrReport } from './run-pipeline.js';
import { loadSpecOptions, SPEC_FLAGS_USAGE } from './spec-options.js';

export const command: CliCommand = {
  name: 'check',
  summary: 'fail when committed generated code has drifted from the spec (CI drift gate)',
  usage: `Usage: paygate check [--input FILE] [--asyncapi FILE|none] [--out DIR] [--targets LIST] [--lint MODE]

Regenerates in memory with the same flags and config as \`paygate generate\` (plugins included) and compares with
the files on disk. Nothing is written.

Flags:
${SPEC_FLAGS_USAGE}

Exit codes: 0 up to date, 1 drifted or missing files (listed on stdout) or spec errors, 2 bad flags, 3 a file is missing.

Example (CI):
  npx paygate check --input openapi.yaml --out src/generated`,
  async run(argv, io) {
    const options = await loadSpecOptions(argv, io.cwd);
    if (options.config.source !== undefined) io.stderr(`Config: ${options.config.source}\n`);
    const result = await runPipelineOrReport(options.generate, io, { lintDetails: options.lintDetails });
    if (result === undefined) return EXIT.failed;
    const { files } = result;
    const drift = await compareWithDisk(options.rootDir, files);
    if (drift.drifted.length === 0 && drift.missing.length === 0) {
      io.stdout(`All ${files.length} generated files are up to date.\n`);
      return EXIT.ok;
    }
    for (const file of drift.drifted) io.stdout(`drifted: ${file}\n`);
    for (const file of drift.missing) io.stdout(`missing: ${file}\n`);
    const fix = options.workspaceLayout ? 'npm run generate' : `npx paygate generate ${argv.join(' ')}`.trim();
    io.stderr(`Generated code is out of date with the spec. Run \`${fix}\` and commit the result.\n`);
    return EXIT.failed;
  },
};
