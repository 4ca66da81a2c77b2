/**
 * Runs the generation pipeline for a command with progress on stderr, turning spec problems into messages that
 * name the spec location and the next step (never a stack trace).
 */
import { formatLintSummary } from '../../parse/lint-summary.js';
import { ruleDocs, SpecLintError } from '../../parse/openapi.js';
import { UnsupportedSpecError } from '../../parse/refusal.js';
import { generate, type GenerateOptions, type GenerateResult } from '../../pipeline.js';
import type { CliIo } from '../command.js';

/** A spec the pipeline refused: the message names where and what to do; the command exits 1. */
export class SpecProblem extends Error {
  override name = 'SpecProblem';
}

/** How a run prints what it found. */
export interface PipelineDisplay {
  /** Every lint warning on its own line instead of the summary per rule (D373 lint warnings grouped per rule). */
  lintDetails?: boolean;
}

export async function runPipeline(options: GenerateOptions, io: CliIo, display: PipelineDisplay = {}): Promise<GenerateResult> {
  io.stderr(`Reading ${[options.openapi, options.asyncapi].filter(Boolean).join(' + ')}\n`);
  let result: GenerateResult;
  try {
    result = await generate({ ...options, onProgress: (step, ms) => io.stderr(`  ${step.padEnd(36)} ${ms.toFixed(0).padStart(6)} ms\n`) });
  } catch (error) {
    if (error instanceof SpecLintError) {
      throw new SpecProblem(
        `${error.message}\nFix the spec at the locations above and run the command again (or add --lint report to generate anyway).`,
      );
    }
    // A deliberate refusal already names the spec location and the fix: it is not a generator bug.
    if (error instanceof UnsupportedSpecError) throw new SpecProblem(error.message);
    throw new SpecProblem(
      `Could not generate from ${options.openapi}: ${(error as Error).message}\n` +
        'Check the named part of the spec; if the document is valid OpenAPI 3.0/3.1, report it as a Paygate generator bug with the spec attached.',
    );
  }
  const warnings = result.lintProblems.filter((p) => p.severity === 'warn');
  if (warnings.length > 0) {
    io.stderr(
      formatLintSummary(warnings, { details: display.lintDetails ?? false })
        .map((line) => `  ${line}\n`)
        .join(''),
    );
    io.stderr(
      `  What each rule asks for:\n${ruleDocs(warnings, options.lintConfig)
        .map((line) => `  ${line}\n`)
        .join('')}`,
    );
  }
  for (const problem of result.asyncapiProblems) io.stderr(`    ${problem}\n`);
  for (const skipped of result.skippedServerOperations) {
    io.stderr(
      `  warning: the server scaffold skips ${skipped.operationId} (it answers 501; contract and client are generated): ${skipped.pointer}: ${skipped.problem}\n    Fix: ${skipped.fix}\n`,
    );
  }
  for (const warning of result.warnings) io.stderr(`  warning: ${warning.pointer}: ${warning.problem}\n    Fix: ${warning.fix}\n`);
  return result;
}

/**
 * {@link runPipeline} for a command: a spec problem is printed (it names the location and the fix) and the result is
 * undefined, so the command returns EXIT.failed; anything else propagates (a bug: run-command.ts reports it).
 */
export async function runPipelineOrReport(
  options: GenerateOptions,
  io: CliIo,
  display: PipelineDisplay = {},
): Promise<GenerateResult | undefined> {
  try {
    return await runPipeline(options, io, display);
  } catch (error) {
    if (!(error instanceof SpecProblem)) throw error;
    io.stderr(`${error.message}\n`);
    return undefined;
  }
}
