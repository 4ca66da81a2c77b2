/**
 * `paygate serve`: the reference gateway. Delegates to @paygate/reference's own entry (its environment variables,
 * start-up output and graceful stop). @paygate/reference is an optional peer of @paygate/cli (D125 paygate contract checks any API against its spec): generating code
 * installs no gateway (PGlite, pg, ioredis, pino...); this command loads it when it runs and says how to install it
 * when it is missing.
 */
import { EnvironmentError, EXIT, UsageError, type CliCommand, type ExitCode } from '../command.js';

const INSTALL_HINT = 'paygate serve runs the reference gateway, which is not installed: run `npm install @paygate/reference`, then rerun.';

type ReferenceCli = typeof import('@paygate/reference/cli');

/**
 * @paygate/reference's entry, or undefined when the package is not installed: its bundle (`@paygate/reference/serve`,
 * the same module as `@paygate/reference/cli` with what it imports in one file and a few chunks; D189).
 */
export async function loadReferenceCli(): Promise<ReferenceCli | undefined> {
  try {
    return await import('@paygate/reference/serve');
  } catch (error) {
    // Only a missing package is the user's to fix; anything else failing to load is a bug worth its stack.
    if ((error as NodeJS.ErrnoException).code === 'ERR_MODULE_NOT_FOUND' && /@paygate\/reference/.test(String((error as Error).message)))
      return undefined;
    throw error;
  }
}

/** The environment section of the gateway's usage (shared with `paygate --help`), or how to install it. */
export async function serveEnvironment(): Promise<string> {
  const reference = await loadReferenceCli();
  if (reference === undefined)
    return `Environment: install @paygate/reference (npm install @paygate/reference) for paygate serve and its variables.\n`;
  return reference.USAGE.slice(reference.USAGE.indexOf('Environment:'));
}

/** The command, its usage listing the gateway's variables when @paygate/reference is installed. */
export async function loadServeCommand(): Promise<CliCommand> {
  const SERVE_ENVIRONMENT = await serveEnvironment();
  return {
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
      const reference = await loadReferenceCli();
      if (reference === undefined) throw new EnvironmentError(INSTALL_HINT);
      try {
        reference.parseServeArguments(argv);
      } catch (err) {
        throw new UsageError((err as Error).message);
      }
      const code = await reference.main(['serve', ...argv]);
      if (code !== undefined) return code === 0 ? EXIT.ok : EXIT.failed;
      // Serving: the gateway's signal handlers stop it gracefully and end the process with its own exit code.
      return new Promise<ExitCode>(() => undefined);
    },
  };
}
