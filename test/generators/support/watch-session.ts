/** `paygate generate --watch` in process for a test: its lines, a wait for one, and a stop (plugin-project, incremental). */
import type { CliIo } from '../../../generators/src/cli/command.js';
import { watchGenerate } from '../../../generators/src/cli/commands/generate.js';
import { loadSpecOptions } from '../../../generators/src/cli/commands/spec-options.js';

export interface WatchSession {
  /** Every line the watch printed so far (its stderr). */
  lines: string[];
  /** Resolves with the first line `what` accepts; fails naming `label` and the lines after two minutes. */
  waitFor(what: (line: string) => boolean, label: string): Promise<string>;
  /** Ends the watch and waits for it. */
  stop(): Promise<void>;
}

/** Starts the watch of the project in `dir` (its config file, as `paygate generate --watch` run there). */
export async function startWatch(dir: string): Promise<WatchSession> {
  const options = await loadSpecOptions([], dir);
  const lines: string[] = [];
  const io: CliIo = { cwd: dir, stdout: () => undefined, stderr: (t) => void lines.push(t) };
  const controller = new AbortController();
  const watching = watchGenerate(options, io, controller.signal);
  return {
    lines,
    async waitFor(what, label) {
      const deadline = Date.now() + 120_000;
      while (!lines.some(what)) {
        if (Date.now() > deadline) throw new Error(`no line ${label} in:\n${lines.join('')}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      return lines.find(what)!;
    },
    async stop() {
      controller.abort();
      await watching;
    },
  };
}
