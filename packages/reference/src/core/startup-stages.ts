/**
 * Start-up measured per stage (D170, issue 23): `paygate serve` marks each step of its start (modules loaded, database
 * opened, migrations checked, ...) with the time and the CPU time since the process started, and logs them once it
 * listens, at debug level (`LOG_LEVEL=debug paygate serve`; bench/tools/coldstart-stages.mjs and the bench's startup
 * section read that line). Only a start that asked for it records anything: tests and library callers that open
 * databases record nothing.
 */
export interface StartupStage {
  /** What has just finished, e.g. `database opened`. */
  stage: string;
  /** Milliseconds since the process started (performance.now()). */
  ms: number;
  /** CPU milliseconds (user + system) the process has used since it started. */
  cpuMs: number;
}

let stages: StartupStage[] | undefined;

/** Start recording (paygate serve, before anything else). */
export function recordStartupStages(): void {
  stages = [];
}

/** Mark the end of a stage; nothing unless a start is being recorded. */
export function markStartupStage(stage: string): void {
  if (stages === undefined) return;
  const cpu = process.cpuUsage();
  stages.push({ stage, ms: Math.round(performance.now()), cpuMs: Math.round((cpu.user + cpu.system) / 1000) });
}

/** The stages recorded so far, in the order they finished; recording stops. */
export function takeStartupStages(): StartupStage[] {
  const taken = stages ?? [];
  stages = undefined;
  return taken;
}
