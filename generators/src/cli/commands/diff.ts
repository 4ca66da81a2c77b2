/**
 * `paygate diff <old> <new>`: the breaking-change report between two versions of the contract (files or
 * `<git ref>:<path>`); `paygate diff --gate`: the compatibility gate (current spec vs the newest released contract).
 */
import { parseArgs } from 'node:util';
import { compareContracts } from '../../diff/compare.js';
import { runCompat } from '../../diff/compat.js';
import { loadSnapshot } from '../../diff/load.js';
import { CURRENT_SPEC, RELEASED_DIR } from '../../diff/released.js';
import { REPORT_FORMATS, formatReport, reportData, summaryLine, type ReportFormat } from '../../diff/report.js';
import { EXIT, UsageError, type CliCommand, type CliIo, type ExitCode } from '../command.js';

const FAIL_ON = ['breaking', 'none'] as const;
type FailOn = (typeof FAIL_ON)[number];

const USAGE = `Usage: paygate diff <old> <new> [--format text|json|markdown] [--fail-on breaking|none]
       paygate diff --gate [--spec ${CURRENT_SPEC}] [--released ${RELEASED_DIR}] [--format text|json|markdown]

Compares two versions of the API contract and classifies every change as breaking, non-breaking or annotation,
in the direction the data flows: requests break when they get stricter, responses, webhooks and AsyncAPI event
payloads break when they get looser or lose fields (the API's clients read them).

<old>, <new>        a spec file (openapi/openapi.yaml, with asyncapi.yaml beside it), a released contract
                    (openapi/released/1.0.0.json, with 1.0.0.asyncapi.json beside it) or <git ref>:<path>
                    (origin/main:openapi/openapi.yaml; the path is from the repository root, ./path from here)
--format            text (default), json or markdown (for a pull request comment)
--fail-on           breaking (default): exit 1 when a breaking change is found; none: report only
--gate              the compatibility gate (npm run compat): --spec against the newest contract in --released;
                    breaking changes fail unless info.version is a new major version or
                    <released>/allowed-breaking-changes.yaml lists them (kind + pointer + reason)

Exit codes: 0 no breaking change (or allowed), 1 breaking change found, 2 usage error, 3 unreadable input.
Example: paygate diff origin/main:openapi/openapi.yaml openapi/openapi.yaml --format markdown`;

interface DiffOptions {
  positionals: string[];
  format: ReportFormat;
  failOn: FailOn;
  gate: boolean;
  spec: string;
  released: string;
  help: boolean;
}

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  const found = allowed.find((a) => a === value);
  if (found === undefined) throw new UsageError(`--${flag} ${value}: expected one of ${allowed.join(', ')}`);
  return found;
}

export function parseDiffArgs(argv: readonly string[]): DiffOptions {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        format: { type: 'string' },
        'fail-on': { type: 'string' },
        gate: { type: 'boolean', default: false },
        spec: { type: 'string', default: CURRENT_SPEC },
        released: { type: 'string', default: RELEASED_DIR },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  const options: DiffOptions = {
    positionals,
    format: oneOf('format', values.format, REPORT_FORMATS, 'text'),
    failOn: oneOf('fail-on', values['fail-on'], FAIL_ON, 'breaking'),
    gate: values.gate,
    spec: values.spec,
    released: values.released,
    help: values.help,
  };
  if (options.help) return options;
  if (options.gate && positionals.length > 0) throw new UsageError(`--gate compares --spec with the newest released contract: drop ${positionals.join(' ')}`);
  if (!options.gate && positionals.length !== 2) throw new UsageError(`expected <old> and <new>, got ${positionals.length} argument(s)`);
  return options;
}

async function gate(options: DiffOptions, io: CliIo): Promise<ExitCode> {
  const outcome = await runCompat({ cwd: io.cwd, spec: options.spec, releasedDir: options.released, progress: (line) => io.stderr(`[compat] ${line}\n`) });
  const report = { from: outcome.released.label, to: outcome.current.label, changes: outcome.input.changes };
  if (options.format === 'json') {
    io.stdout(`${JSON.stringify({ ...reportData(report), gate: outcome.result }, null, 2)}\n`);
  } else {
    io.stdout(options.format === 'markdown' ? formatReport(report, 'markdown') : `${summaryLine(report)}\n`);
    (outcome.result.passed ? io.stdout : io.stderr)(outcome.report);
  }
  return outcome.result.passed ? EXIT.ok : EXIT.failed;
}

export const command: CliCommand = {
  name: 'diff',
  summary: 'breaking-change report between two versions of the contract; --gate: the compatibility gate',
  usage: USAGE,
  async run(argv, io) {
    const options = parseDiffArgs(argv);
    if (options.help) {
      io.stdout(`${USAGE}\n`);
      return EXIT.ok;
    }
    if (options.gate) return gate(options, io);
    const [from, to] = options.positionals as [string, string];
    io.stderr(`[diff] loading ${from} and ${to}\n`);
    const [before, after] = await Promise.all([loadSnapshot(from, io.cwd), loadSnapshot(to, io.cwd)]);
    const changes = compareContracts(before, after);
    io.stdout(formatReport({ from, to, changes }, options.format));
    const breaking = changes.some((c) => c.classification === 'breaking');
    if (breaking && options.failOn === 'breaking') {
      io.stderr(`[diff] breaking changes found: clients integrated against ${from} break. Make the change compatible, or release it as a new major version.\n`);
      return EXIT.failed;
    }
    return EXIT.ok;
  },
};
