/**
 * `paygate diff <old> <new>`: the breaking-change report between two versions of the contract (files or
 * `<git ref>:<path>`); `paygate diff --gate`: the compatibility gate (current spec vs the newest released contract).
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { compareContracts } from '../../diff/compare.js';
import { runCompat } from '../../diff/compat.js';
import { loadSnapshot } from '../../diff/load.js';
import { CURRENT_SPEC, RELEASED_DIR } from '../../diff/released.js';
import { DEFAULT_TOP, REPORT_FORMATS, formatReport, reportData, summaryLine, type ReportFormat } from '../../diff/report.js';
import { FAIL_ON_LEVELS, failsOn, type FailOn } from '../../diff/types.js';
import { EXIT, UsageError, type CliCommand, type CliIo, type ExitCode } from '../command.js';
import { loadConfig } from '../config.js';

const FAIL_ON = FAIL_ON_LEVELS;

const USAGE = `Usage: paygate diff <old> <new> [--format text|json|markdown] [--fail-on LEVEL] [--top N]
       paygate diff --gate [--spec ${CURRENT_SPEC}] [--released ${RELEASED_DIR}] [--format text|json|markdown] [--fail-on LEVEL]

Compares two versions of the API contract by meaning ($refs followed, allOf merged, annotations apart) and classifies
every change as breaking, unclassified, warning, non-breaking or annotation, in the direction the data flows:
requests break when they get stricter, responses, webhooks and AsyncAPI event payloads break when they lose fields
or carry types their readers do not expect (the API's clients read them). Each change is reported once, where it is
defined, with the operations that use it.

<old>, <new>        a spec file (openapi/openapi.yaml, with asyncapi.yaml beside it), a released contract
                    (openapi/released/1.0.0.json, with 1.0.0.asyncapi.json beside it) or <git ref>:<path>
                    (origin/main:openapi/openapi.yaml; the path is from the repository root, ./path from here)
--format            text (default), json or markdown (for a pull request comment: counts, then the first --top
                    entries of each section that can fail)
--fail-on LEVEL     exit 1 on a change of LEVEL or a more severe one: breaking (default), unclassified (also
                    changes the comparer cannot classify), warning (also changes that break strict clients, e.g. a
                    response enum widened), info (any change), none (report only)
--top N             markdown: entries listed per section (default ${DEFAULT_TOP})
--config FILE       the config file (default paygate.config.* or package.json's "paygate" key): its input is
                    the default of --spec
--gate              the compatibility gate (npm run compat): --spec against the newest contract in --released;
                    changes at --fail-on or above fail unless info.version is a new major version or
                    <released>/allowed-breaking-changes.yaml lists them (kind + pointer of the definition + reason)

Exit codes: 0 nothing at --fail-on (or allowed), 1 a change at --fail-on or above, 2 usage error, 3 unreadable input.
Example: paygate diff origin/main:openapi/openapi.yaml openapi/openapi.yaml --format markdown`;

interface DiffOptions {
  positionals: string[];
  format: ReportFormat;
  failOn: FailOn;
  gate: boolean;
  spec: string;
  /** --spec was given (else the config's input, else ${CURRENT_SPEC}). */
  specGiven: boolean;
  /** --config FILE. */
  config?: string;
  released: string;
  releasedGiven: boolean;
  top: number;
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
        spec: { type: 'string' },
        config: { type: 'string' },
        released: { type: 'string' },
        top: { type: 'string' },
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
    spec: values.spec ?? CURRENT_SPEC,
    specGiven: values.spec !== undefined,
    ...(values.config === undefined ? {} : { config: values.config }),
    released: values.released ?? RELEASED_DIR,
    releasedGiven: values.released !== undefined,
    top: values.top === undefined ? DEFAULT_TOP : Number(values.top),
    help: values.help,
  };
  if (!Number.isInteger(options.top) || options.top < 0) throw new UsageError(`--top ${values.top}: expected a whole number`);
  if (options.help) return options;
  if (options.gate && positionals.length > 0)
    throw new UsageError(`--gate compares --spec with the newest released contract: drop ${positionals.join(' ')}`);
  if (!options.gate && positionals.length !== 2) throw new UsageError(`expected <old> and <new>, got ${positionals.length} argument(s)`);
  return options;
}

async function gate(options: DiffOptions, io: CliIo): Promise<ExitCode> {
  // D372: the config's input is the gate's current spec unless --spec names another
  const { config, source } = options.specGiven ? { config: {}, source: undefined } : await loadConfig(io.cwd, options.config);
  if (source !== undefined && config.input !== undefined) io.stderr(`[compat] config ${source}: spec ${config.input}\n`);
  const spec = options.specGiven ? options.spec : (config.input ?? options.spec);
  const outcome = await runCompat({
    cwd: io.cwd,
    spec,
    // the released contracts sit beside the spec (`paygate release` writes them there)
    releasedDir: options.releasedGiven || spec === options.spec ? options.released : path.posix.join(path.posix.dirname(spec), 'released'),
    failOn: options.failOn,
    progress: (line) => io.stderr(`[compat] ${line}\n`),
  });
  const report = { from: outcome.released.label, to: outcome.current.label, changes: outcome.input.changes };
  if (options.format === 'json') {
    io.stdout(`${JSON.stringify({ ...reportData(report), gate: outcome.result }, null, 2)}\n`);
  } else {
    io.stdout(options.format === 'markdown' ? formatReport(report, 'markdown', { top: options.top }) : `${summaryLine(report)}\n`);
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
    io.stdout(formatReport({ from, to, changes }, options.format, { top: options.top }));
    const failing = changes.filter((c) => failsOn(c.classification, options.failOn));
    if (failing.length > 0) {
      io.stderr(
        `[diff] ${failing.length} change(s) at --fail-on ${options.failOn} or above: clients integrated against ${from} may break. Make the change compatible, or release it as a new major version.\n`,
      );
      return EXIT.failed;
    }
    return EXIT.ok;
  },
};
