/**
 * The README's shell blocks, read from the Markdown (decisions D128, D295). The marker convention, on the fence line:
 *
 *   ```sh readme-gateway          the command that starts the gateway; the test starts the same `paygate serve` with the
 *                                 block's leading VAR=value assignments (on a free port, in a temporary PGlite dir)
 *   ```sh readme-test=<session>   a block run as written, in README order, in the bash of its <session> (a second shell,
 *                                 a third: each session's shell lives on, so a later block may go back to it)
 *     ... readme-browser=<step>   after the block, the test does what the README asks of the person in a browser
 *                                 (a step of browser-steps.ts, on the checkout page the block printed)
 *   ```sh readme-not-run: <why>   not run by this test, and why (a fresh directory, your own deployment, ...)
 *
 * Every shell block (sh, bash, shell, console) carries one of them: a block nobody runs and nobody explains is a dead
 * end a newcomer meets first. Inside a run block, a comment `# => text` says what the block prints; `...` in it stands
 * for what differs between runs (ids, timings), and `$NAME` for the value of a variable the session sets (a port).
 */

export interface ReadmeBlock {
  /** 1-based line of the opening fence in README.md (for messages). */
  line: number;
  session: string;
  code: string;
  /** The `# =>` texts of the block, in order. */
  prints: string[];
  /** The browser step the person takes after this block (readme-browser=<step>), if any. */
  browser?: string;
}

export interface ReadmeRunbook {
  /** The assignments before `npm start` in the readme-gateway block. */
  gatewayEnv: Record<string, string>;
  /** Every run block in README order. */
  blocks: ReadmeBlock[];
  /** Sessions in the order their first block appears, each with its blocks in README order. */
  sessions: Map<string, ReadmeBlock[]>;
  /** The shell blocks not run, each with why. */
  notRun: { line: number; reason: string }[];
}

const FENCE = /^( {0,3})```(\S*)([^\n]*)\n([\s\S]*?)^\1```[ \t]*$/gm;
const SHELLS = new Set(['sh', 'bash', 'shell', 'console', 'zsh']);

export function parseReadme(markdown: string): ReadmeRunbook {
  const sessions = new Map<string, ReadmeBlock[]>();
  const blocks: ReadmeBlock[] = [];
  const notRun: ReadmeRunbook['notRun'] = [];
  let gatewayEnv: Record<string, string> | undefined;
  for (const match of markdown.matchAll(FENCE)) {
    const [, indent = '', lang = '', info = '', body = ''] = match;
    const code = body.replace(new RegExp(`^ {0,${indent.length}}`, 'gm'), '');
    const words = info.trim().split(/\s+/).filter(Boolean);
    const line = markdown.slice(0, match.index).split('\n').length;
    // first: a reason is free text, and may name the other markers
    const notRunAt = info.indexOf('readme-not-run:');
    if (notRunAt >= 0) {
      const reason = info.slice(notRunAt + 'readme-not-run:'.length).trim();
      if (reason === '') throw new Error(`README.md:${line}: readme-not-run: says why the block is not run; the reason is missing`);
      notRun.push({ line, reason });
      continue;
    }
    if (words.includes('readme-gateway')) {
      if (lang !== 'sh') throw new Error(`README.md:${line}: a readme-gateway block must be \`sh\``);
      const command = code.trim().match(/^((?:[A-Z_][A-Z0-9_]*=\S+\s+)*)npm start\b/);
      if (!command) throw new Error(`README.md:${line}: the readme-gateway block must be \`VAR=value ... npm start\``);
      gatewayEnv = Object.fromEntries(
        (command[1] ?? '')
          .trim()
          .split(/\s+/)
          .filter(Boolean)
          .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
      );
      continue;
    }
    const marker = words.find((w) => w.startsWith('readme-test='));
    if (marker === undefined) {
      if (SHELLS.has(lang))
        throw new Error(
          `README.md:${line}: every shell block says whether test/readme runs it: \`\`\`sh readme-test=<session> (run) or ` +
            `\`\`\`${lang} readme-not-run: <why> (D295)`,
        );
      continue;
    }
    if (lang !== 'sh') throw new Error(`README.md:${line}: a readme-test block must be \`sh\``);
    const session = marker.slice('readme-test='.length);
    const browser = words.find((w) => w.startsWith('readme-browser='))?.slice('readme-browser='.length);
    const prints = [...code.matchAll(/#\s*=>\s*(.+?)\s*$/gm)].map((m) => m[1]!);
    const block: ReadmeBlock = { line, session, code, prints, ...(browser ? { browser } : {}) };
    blocks.push(block);
    sessions.set(session, [...(sessions.get(session) ?? []), block]);
  }
  if (gatewayEnv === undefined) throw new Error('README.md has no ```sh readme-gateway block');
  return { gatewayEnv, blocks, sessions, notRun };
}

/**
 * A `# =>` text as a pattern over one line of output: `...` matches anything on that line, and `$NAME` (or `${NAME}`)
 * the value `env` gives that variable (a name it does not give stays as written).
 */
export function printsPattern(text: string, env: Readonly<Record<string, string | undefined>> = {}): RegExp {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const expand = (s: string) => s.replace(/\$\{?([A-Z_][A-Z0-9_]*)\}?/g, (all, name: string) => env[name] ?? all);
  return new RegExp(text.split('...').map(expand).map(escape).join('.*?'));
}
