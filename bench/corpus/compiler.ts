/**
 * Strict NodeNext `tsc` in-process with one compiler host shared across documents (D401: a shared compiler host):
 * every file outside the document's own directory (TypeScript's lib .d.ts, @types/node, express's types, the
 * @paygate runtimes' sources) is read and parsed once per worker and its SourceFile reused by every later program, as
 * TypeScript's language service does with its document registry. Only the document's files are checked: an error in
 * a runtime source is the repository's `npm run typecheck`'s to find, not a document's.
 *
 * The options are the repository's strict base tsconfig (tsconfig.base.json) as `compileProject`
 * (test/generators/support/compile-generated.ts) applies it to generated projects, so a document compiles here exactly
 * when it compiles there.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface CompileResult {
  /** Error diagnostics in the document's files (0: compiled). */
  errors: number;
  /** The first diagnostics, `file(line,col): error TSnnnn: message`, paths relative to the project. */
  diagnostics: string[];
  ms: number;
}

export class SharedCompiler {
  private readonly options: ts.CompilerOptions;
  private readonly cache = new Map<string, ts.SourceFile | undefined>();

  constructor(root: string) {
    const base = ts.readConfigFile(path.join(root, 'tsconfig.base.json'), (f) => readFileSync(f, 'utf8'));
    const parsed = ts.parseJsonConfigFileContent(
      {
        ...(base.config as object),
        compilerOptions: {
          ...(base.config as { compilerOptions: object }).compilerOptions,
          noEmit: true,
          types: ['node'],
          customConditions: ['source'],
        },
      },
      ts.sys,
      root,
    );
    this.options = { ...parsed.options, noEmit: true, declaration: false, sourceMap: false };
  }

  /** Type-checks `files` (absolute) of a project in `dir` (which has a `node_modules` link to the repository's). */
  compile(dir: string, files: readonly string[]): CompileResult {
    const started = performance.now();
    const host = ts.createCompilerHost(this.options, true);
    const own = (fileName: string) => !path.relative(dir, fileName).startsWith('..') && !fileName.includes('/node_modules/');
    // node_modules is a link: resolve to the real path so every document's program shares one SourceFile per file
    host.realpath = (p) => ts.sys.realpath?.(p) ?? p;
    const read = host.getSourceFile.bind(host);
    host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
      if (own(fileName)) return read(fileName, languageVersion, onError, shouldCreate);
      const real = ts.sys.realpath?.(fileName) ?? fileName;
      if (!this.cache.has(real)) this.cache.set(real, read(real, languageVersion, onError, shouldCreate));
      return this.cache.get(real);
    };
    const program = ts.createProgram({ rootNames: [...files], options: this.options, host });
    const diagnostics: ts.Diagnostic[] = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
    for (const sf of program.getSourceFiles()) {
      if (!own(sf.fileName)) continue;
      diagnostics.push(...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf));
    }
    const errors = diagnostics.filter((d) => d.category === ts.DiagnosticCategory.Error);
    return {
      errors: errors.length,
      diagnostics: errors.slice(0, 20).map((d) => format(d, dir)),
      ms: performance.now() - started,
    };
  }
}

function format(d: ts.Diagnostic, dir: string): string {
  const message = ts.flattenDiagnosticMessageText(d.messageText, ' ').slice(0, 400);
  if (d.file === undefined || d.start === undefined) return `error TS${d.code}: ${message}`;
  const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
  return `${path.relative(dir, d.file.fileName)}(${line + 1},${character + 1}): error TS${d.code}: ${message}`;
}
