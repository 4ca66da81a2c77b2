/**
 * `npm run code-size [-- --write]`: the hand-written files over 400 lines and functions over 80 lines (issue 35: each
 * is split or listed with why). The why of each is kept in `docs/code-size.json` (`"path"` for a file,
 * `"path#function"` for a function); this prints what is long, what is long without a why, and whys whose file or
 * function is no longer long (stale). `--write` rewrites the table in docs/architecture.md between its markers.
 * test/spec/code-size.test.ts fails on a long file or function without a why, on a stale why and on a stale table.
 *
 * Counted: TypeScript under packages/<name>/src, generators/src, scripts and bench, tests and generated files
 * (`*.gen.ts`, `generated/`) excepted: a test's length is its table of cases, generated code is data.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import ts from 'typescript';

export const FILE_LINES = 400;
export const FUNCTION_LINES = 80;
const ROOT = path.resolve(import.meta.dirname, '..');
const REASONS_FILE = 'docs/code-size.json';
const ARCHITECTURE = 'docs/architecture.md';
const BEGIN = '<!-- code-size:begin (npm run code-size -- --write) -->';
const END = '<!-- code-size:end -->';

export interface LongThing {
  /** `path` for a file, `path#name` for a function. */
  key: string;
  lines: number;
}

function counted(file: string): boolean {
  if (!file.endsWith('.ts') || file.endsWith('.d.ts') || file.endsWith('.test.ts') || file.endsWith('.gen.ts')) return false;
  if (file.split('/').includes('generated') || file.split('/').includes('fixtures')) return false;
  return /^(packages\/[^/]+\/src|generators\/src|scripts|bench)\//.test(file);
}

/** A function's name as a reader would search for it: `name`, `Class.method`, or `outer/<arrow at line N>`. */
function nameOf(node: ts.Node, source: ts.SourceFile): string | undefined {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name) {
    const own = node.name.getText(source);
    const cls = ts.isClassLike(node.parent) && node.parent.name ? `${node.parent.name.getText(source)}.` : '';
    return cls + own;
  }
  if ((ts.isArrowFunction(node) || ts.isFunctionExpression(node)) && ts.isVariableDeclaration(node.parent))
    return node.parent.name.getText(source);
  if ((ts.isArrowFunction(node) || ts.isFunctionExpression(node)) && ts.isPropertyAssignment(node.parent))
    return node.parent.name.getText(source);
  if (ts.isArrowFunction(node) || ts.isFunctionExpression(node)) {
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    return `<function at line ${line}>`;
  }
  return undefined;
}

/** A callback of `describe`/`it`/`test` (a suite's list of cases, not a function a reader must hold in mind at once). */
function isTestBlock(node: ts.Node): boolean {
  const call = node.parent;
  if (!call || !ts.isCallExpression(call)) return false;
  // describe(...), it.skipIf(x)(...), describe.each(rows)(...): down to the identifier the chain starts from
  let base: ts.Expression = call.expression;
  while (ts.isCallExpression(base) || ts.isPropertyAccessExpression(base)) base = base.expression;
  return ts.isIdentifier(base) && ['describe', 'it', 'test'].includes(base.text);
}

export function longThings(root = ROOT): LongThing[] {
  const files = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' }).split('\n').filter(counted).sort();
  const out: LongThing[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = readFileSync(path.join(root, file), 'utf8');
    } catch {
      continue; // deleted in the work tree
    }
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > FILE_LINES) out.push({ key: file, lines });
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const seen = new Map<string, number>();
    const visit = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body && !isTestBlock(node)) {
        const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        const span = end - start + 1;
        const name = nameOf(node, source);
        if (span > FUNCTION_LINES && name !== undefined) {
          const n = (seen.get(name) ?? 0) + 1;
          seen.set(name, n);
          out.push({ key: `${file}#${n === 1 ? name : `${name} (${n})`}`, lines: span });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

export function readReasons(root = ROOT): Record<string, string> {
  return JSON.parse(readFileSync(path.join(root, REASONS_FILE), 'utf8')) as Record<string, string>;
}

export function table(things: readonly LongThing[], reasons: Record<string, string>): string {
  const rows = things.map((t) => {
    const [file, fn] = t.key.split('#') as [string, string | undefined];
    const what = fn === undefined ? `\`${file}\`` : `\`${file}\` \`${fn}\``;
    return `| ${what} | ${t.lines} | ${(reasons[t.key] ?? '(no reason given)').replaceAll('|', '\\|')} |`;
  });
  return [BEGIN, `| File or function | Lines | Why it is not split (yet) |`, '| --- | ---: | --- |', ...rows, END].join('\n');
}

export function architectureWithTable(current: string, things: readonly LongThing[], reasons: Record<string, string>): string {
  const a = current.indexOf(BEGIN);
  const b = current.indexOf(END);
  if (a < 0 || b < a) throw new Error(`${ARCHITECTURE} has no ${BEGIN} ... ${END} markers: add them where the table goes`);
  return current.slice(0, a) + table(things, reasons) + current.slice(b + END.length);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const things = longThings();
  const reasons = readReasons();
  const keys = new Set(things.map((t) => t.key));
  const missing = things.filter((t) => reasons[t.key] === undefined);
  const stale = Object.keys(reasons).filter((k) => !keys.has(k));
  console.log(`${things.length} long (files over ${FILE_LINES} lines, functions over ${FUNCTION_LINES}):`);
  for (const t of things) console.log(`  ${String(t.lines).padStart(5)}  ${t.key}${reasons[t.key] === undefined ? '   <- no reason' : ''}`);
  if (stale.length) console.log(`stale reasons in ${REASONS_FILE} (no longer long: delete them):\n  ${stale.join('\n  ')}`);
  if (process.argv.includes('--write')) {
    const file = path.join(ROOT, ARCHITECTURE);
    writeFileSync(file, architectureWithTable(readFileSync(file, 'utf8'), things, reasons));
    console.log(`wrote the table in ${ARCHITECTURE}`);
  }
  if (missing.length) console.log(`${missing.length} without a reason: split them, or add "<key>": "<why>" to ${REASONS_FILE}`);
  process.exitCode = missing.length || stale.length ? 1 : 0;
}
