/**
 * Every `paygate` sub-command, one line each, in the order `paygate --help` lists them. A new command is a file in
 * this folder exporting `command` (a CliCommand) plus one line here.
 */
import type { CliCommand } from '../command.js';
import { command as check } from './check.js';
import { command as contract } from './contract.js';
import { command as diff } from './diff.js';
import { command as docs } from './docs.js';
import { command as generate } from './generate.js';
import { command as listen } from './listen.js';
import { command as release } from './release.js';
import { command as serve } from './serve.js';
import { command as trigger } from './trigger.js';

export const COMMANDS: readonly CliCommand[] = [
  generate,
  check,
  docs,
  serve,
  contract,
  diff,
  release,
  listen,
  trigger,
];
