/**
 * The README's runnable shell blocks, read from the Markdown (decision D128). The marker convention:
 *
 *   ```sh readme-gateway          the command that starts the gateway; the test starts the same `paygate serve` with the
 *                                 block's leading VAR=value assignments (on a free port, in a temporary PGlite dir)
 *   ```sh readme-test=<session>   a block run as written, in order, in one bash per <session>
 *   ```sh                         not run by the test (it needs a person: a browser payment, a fresh directory)
 *
 * Inside a run block, a comment `# => text` says what the block prints; `...` in it stands for what differs between
 * runs (ids, ports, timings).
 */

export interface ReadmeBlock {
  /** 1-based line of the opening fence in README.md (for messages). */
  line: number;
  session: string;
  code: string;
  /** The `# =>` texts of the block, in order. */
  prints: string[];
}

export interface ReadmeRunbook {
  /** The assignments before `npm start` in the readme-gateway block. */
  gatewayEnv: Record<string, string>;
  /** Sessions in the order their first block appears, each with its blocks in README order. */
  sessions: Map<string, ReadmeBlock[]>;
}

const FENCE = /^```(\S*)([^\n]*)\n([\s\S]*?)^```[ \t]*$/gm;

export function parseReadme(markdown: string): ReadmeRunbook {
  const sessions = new Map<string, ReadmeBlock[]>();
  let gatewayEnv: Record<string, string> | undefined;
  for (const match of markdown.matchAll(FENCE)) {
    const [, lang, info = '', code = ''] = match;
    const words = info.trim().split(/\s+/).filter(Boolean);
    const line = markdown.slice(0, match.index).split('\n').length;
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
    if (marker === undefined) continue;
    if (lang !== 'sh') throw new Error(`README.md:${line}: a readme-test block must be \`sh\``);
    const session = marker.slice('readme-test='.length);
    const prints = [...code.matchAll(/#\s*=>\s*(.+?)\s*$/gm)].map((m) => m[1]!);
    const blocks = sessions.get(session) ?? [];
    blocks.push({ line, session, code, prints });
    sessions.set(session, blocks);
  }
  if (gatewayEnv === undefined) throw new Error('README.md has no ```sh readme-gateway block');
  return { gatewayEnv, sessions };
}

/** A `# =>` text as a pattern over one line of output: `...` matches anything on that line. */
export function printsPattern(text: string): RegExp {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(text.split('...').map(escape).join('.*?'));
}
