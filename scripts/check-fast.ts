/**
 * `npm run check:fast -- <package> [vitest args]`: the inner loop of one package (issue 35: an answer in under 30 s).
 * Type-checks the package's sources and the tests beside them with the repository's settings (workspace packages
 * read from their sources, as `npm run typecheck` does, so nothing needs building) and runs those tests. The package
 * is a folder name under packages/ (`server`, `reference`, `client`, `contract`, `contract-tests`, `webhooks`) or
 * `generators`. The whole repository's checks stay `npm test`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const ROOT = path.resolve(import.meta.dirname, '..');
const [name, ...vitestArgs] = process.argv.slice(2);
const packages = readdirSync(path.join(ROOT, 'packages')).filter((d) => existsSync(path.join(ROOT, 'packages', d, 'src')));
const choices = [...packages, 'generators'];
if (name === undefined || !choices.includes(name)) {
  console.error(`usage: npm run check:fast -- <package> [vitest args]\n  <package>: one of ${choices.join(', ')}`);
  process.exit(2);
}
const src = name === 'generators' ? path.join(ROOT, 'generators', 'src') : path.join(ROOT, 'packages', name, 'src');

const started = performance.now();
const seconds = () => ((performance.now() - started) / 1000).toFixed(1);
console.log(`[check:fast] type-checking ${path.relative(ROOT, src)} (sources and the tests beside them)...`);
const configFile = ts.readConfigFile(path.join(ROOT, 'tsconfig.json'), ts.sys.readFile);
const parsed = ts.parseJsonConfigFileContent(configFile.config, ts.sys, ROOT);
const rootNames = parsed.fileNames.filter((f) => path.resolve(f).startsWith(src + path.sep));
const program = ts.createProgram({ rootNames, options: { ...parsed.options, noEmit: true } });
const diagnostics = ts.getPreEmitDiagnostics(program);
if (diagnostics.length > 0) {
  const host: ts.FormatDiagnosticsHost = {
    getCanonicalFileName: (f) => f,
    getCurrentDirectory: () => ROOT,
    getNewLine: () => '\n',
  };
  console.error(ts.formatDiagnosticsWithColorAndContext(diagnostics, host));
  console.error(`[check:fast] ${diagnostics.length} type error(s) in ${seconds()} s: fix them, then run it again`);
  process.exit(1);
}
console.log(`[check:fast] types ok (${rootNames.length} files) in ${seconds()} s; running the tests beside them...`);
const tests = spawnSync('npx', ['vitest', 'run', path.relative(ROOT, src), ...vitestArgs], { cwd: ROOT, stdio: 'inherit' });
console.log(`[check:fast] ${tests.status === 0 ? 'ok' : 'tests FAILED'} in ${seconds()} s`);
process.exitCode = tests.status ?? 1;
