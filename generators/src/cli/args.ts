import { existsSync } from 'node:fs';
import path from 'node:path';
import { TARGETS, type Target } from '../emit/context.js';
import type { LintMode } from '../parse/openapi.js';
import { didYouMean, flagsOf } from './did-you-mean.js';

export interface CliOptions {
  rootDir: string;
  openapi: string;
  asyncapi: string | null;
  lintConfig: string | undefined;
  lint: LintMode;
  targets: Target[] | undefined;
  check: boolean;
  outRoot: string | undefined;
}

export const USAGE = `Usage: generate [--check] [--input openapi/openapi.yaml] [--asyncapi openapi/asyncapi.yaml|none]
                [--lint-config openapi/redocly.yaml] [--lint strict|report|skip] [--targets contract,server,client,webhooks]
                [--out-root DIR]`;

/** Parses CLI flags; defaults are the canonical spec files when they exist. */
export function parseArgs(argv: readonly string[], rootDir: string = process.cwd()): CliOptions {
  const options: CliOptions = {
    rootDir,
    openapi: 'openapi/openapi.yaml',
    asyncapi: existsSync(path.join(rootDir, 'openapi/asyncapi.yaml')) ? 'openapi/asyncapi.yaml' : null,
    lintConfig: existsSync(path.join(rootDir, 'openapi/redocly.yaml')) ? 'openapi/redocly.yaml' : undefined,
    lint: 'strict',
    targets: undefined,
    check: false,
    outRoot: undefined,
  };
  const args = [...argv];
  const value = (flag: string): string => {
    const v = args.shift();
    if (v === undefined || v.startsWith('--')) throw new Error(`${flag} needs a value\n${USAGE}`);
    return v;
  };
  while (args.length > 0) {
    const flag = args.shift()!;
    switch (flag) {
      case '--check':
        options.check = true;
        break;
      case '--input':
        options.openapi = value(flag);
        break;
      case '--asyncapi': {
        const v = value(flag);
        options.asyncapi = v === 'none' ? null : v;
        break;
      }
      case '--lint-config':
        options.lintConfig = value(flag);
        break;
      case '--lint': {
        const v = value(flag);
        if (v !== 'strict' && v !== 'report' && v !== 'skip') throw new Error(`--lint must be strict, report or skip\n${USAGE}`);
        options.lint = v;
        break;
      }
      case '--targets': {
        const targets = value(flag)
          .split(',')
          .map((t) => t.trim());
        const unknown = targets.filter((t) => !(TARGETS as readonly string[]).includes(t));
        if (unknown.length > 0) throw new Error(`--targets takes ${TARGETS.join(', ')}; unknown: ${unknown.join(', ')}\n${USAGE}`);
        options.targets = targets as Target[];
        break;
      }
      case '--out-root':
        options.outRoot = value(flag);
        break;
      case '--help':
      case '-h':
        throw new Error(USAGE);
      default:
        throw new Error(`Unknown flag ${flag}.${didYouMean(flag, flagsOf(USAGE))}\n${USAGE}`);
    }
  }
  return options;
}
