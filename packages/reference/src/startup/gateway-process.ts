import { DRAIN_MESSAGE } from '../supervisor/primary.js';
import { serve, StartAbortedError } from './serve.js';

/**
 * One gateway process: alone (`--workers 1`), or a worker of the supervisor (`slot` set), which prints nothing of its
 * own (the supervisor prints the start-up lines once) and also drains when the supervisor asks or goes away.
 */
export async function runGatewayProcess(slot?: number): Promise<number | undefined> {
  const inCluster = slot !== undefined;
  const out = inCluster ? () => undefined : (l: string) => process.stdout.write(`${l}\n`);
  const who = inCluster ? `paygate worker ${slot} (pid ${process.pid})` : 'paygate';
  // Drain that always drains (D360 drain reaches workers still starting): the handlers exist before the start-up begins, so a drain asked for while the
  // gateway starts (the supervisor's SIGTERM or message to a worker it was restarting) is not lost: the start stops
  // before listening (nothing was answered), or the drain begins as soon as the server is up.
  let started: Awaited<ReturnType<typeof serve>> | undefined;
  let drainWhy: string | undefined;
  const startAborted = new AbortController();
  const drain = (why: string) => {
    if (drainWhy !== undefined) return;
    drainWhy = why;
    if (!started) {
      startAborted.abort();
      return;
    }
    const running = started;
    out(`\n${why}: no new connections; finishing in-flight requests, flushing the worker, closing the database...`);
    running.stop().then(
      () => {
        out('Stopped.');
        process.exit(0);
      },
      (err: unknown) => {
        process.stderr.write(`${who}: error while stopping: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  };
  let signals = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (++signals > 1) {
      process.stderr.write(`${who}: ${signal} again, exiting now\n`);
      process.exit(1);
    }
    drain(`${signal} received`);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  if (inCluster) {
    process.on('message', (message: unknown) => {
      if ((message as typeof DRAIN_MESSAGE | undefined)?.paygate === DRAIN_MESSAGE.paygate) drain('the supervisor asked to stop');
    });
    // the supervisor is gone (killed): no one would restart or stop this worker, so it stops itself
    process.on('disconnect', () => drain('the supervisor went away'));
  }
  try {
    // slot 0 of a fleet runs the scheduled jobs; every worker drains the queues (D101 every worker process runs the background queues)
    started = await serve(process.env, out, { scheduledJobs: slot === undefined || slot === 0, signal: startAborted.signal });
  } catch (err) {
    if (err instanceof StartAbortedError) {
      out(`\n${drainWhy ?? 'Stopped'} while starting: stopped before listening.`);
      process.exit(0);
    }
    process.stderr.write(`${who}: ${(err as Error).message}\n`);
    if (inCluster) process.exit(1);
    return 1;
  }
  // a drain asked for between the server's listen and now
  if (drainWhy !== undefined) {
    const why = drainWhy;
    drainWhy = undefined;
    drain(why);
  }
  return undefined;
}
