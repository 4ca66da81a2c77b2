/**
 * `paygate serve`: the reference gateway. Delegates to @paygate/reference's own entry (its environment variables,
 * start-up output and graceful stop), loaded only when serving so the other commands do not open a database driver.
 */
import { USAGE } from '@paygate/reference/cli';
import { EXIT, UsageError, type CliCommand, type ExitCode } from '../command.js';

/** The environment section of the gateway's usage (shared with `paygate --help`). */
export const SERVE_ENVIRONMENT = USAGE.slice(USAGE.indexOf('Environment:'));

export const command: CliCommand = {
  name: 'serve',
  summary: 'run the reference gateway (a stateful sandbox of the Paygate API) on PORT (default 8080)',
  usage: `Usage: paygate serve [--workers N|auto]

Starts the Paygate reference gateway: the HTTP API, hosted checkout, the docs site (when built) and the webhook
worker. Configured with environment variables; Ctrl+C (SIGINT/SIGTERM) stops accepting, finishes in-flight
requests and flushes the webhook worker.

  --workers N|auto   N gateway processes on this machine sharing one port (auto: one per core), supervised: a
                     worker that dies is restarted, SIGTERM drains them all. Needs PostgreSQL (DATABASE_URL).
                     In a container, run one process per container under the orchestrator instead.

${SERVE_ENVIRONMENT}
Exit codes: runs until stopped (0 after a graceful stop); 1 when it cannot start (the message says why and what to
change), when a graceful stop failed, or when the supervisor gave up on workers that kept dying; 2 for a wrong
command line.

Example:
  PORT=8080 PAYGATE_DATA_DIR=./.paygate npx paygate serve
  DATABASE_URL=postgres://postgres@127.0.0.1:5432/paygate npx paygate serve --workers auto`,
  async run(argv) {
    const { main, parseServeArguments } = await import('@paygate/reference/cli');
    try {
      parseServeArguments(argv);
    } catch (err) {
      throw new UsageError((err as Error).message);
    }
    const code = await main(['serve', ...argv]);
    if (code !== undefined) return code === 0 ? EXIT.ok : EXIT.failed;
    // Serving: the gateway's signal handlers stop it gracefully and end the process with its own exit code.
    return new Promise<ExitCode>(() => undefined);
  },
};
