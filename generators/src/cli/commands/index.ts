/**
 * Every `paygate` sub-command, one line each, in the order `paygate --help` lists them. A new command is a file in
 * this folder exporting `command` (a CliCommand) plus one line here. Each command's module is imported only when it
 * runs (D125 paygate contract checks any API against its spec): `paygate --version` and `paygate --help` load none of them, `paygate generate` loads no gateway, and the
 * gateway's commands load @paygate/reference only when they run. main.test.ts checks each line's summary against the
 * command it loads.
 */
import type { CliCommand } from '../command.js';

export interface CommandEntry {
  name: string;
  summary: string;
  load(): Promise<CliCommand>;
}

export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'generate',
    summary: 'generate the contract, server scaffold, client and webhook validators from an OpenAPI document',
    load: async () => (await import('./generate.js')).command,
  },
  {
    name: 'check',
    summary: 'fail when committed generated code has drifted from the spec (CI drift gate)',
    load: async () => (await import('./check.js')).command,
  },
  {
    name: 'templates',
    summary: 'list the built-in templates, or eject them into a folder that overrides them (--templates DIR)',
    load: async () => (await import('./templates.js')).command,
  },
  {
    name: 'docs',
    summary: 'build the static API reference site (Redoc, events, error codes, decisions; works offline)',
    load: async () => (await import('./docs.js')).command,
  },
  {
    name: 'serve',
    summary: 'run the reference gateway (a stateful sandbox of the Paygate API) on PORT (default 8080)',
    load: async () => (await import('./serve.js')).loadServeCommand(),
  },
  {
    name: 'contract',
    summary: "check a deployment against a spec (any API with --spec; Paygate's flow suite without) with a coverage table and JUnit",
    load: async () => (await import('./contract.js')).command,
  },
  {
    name: 'diff',
    summary: 'breaking-change report between two versions of the contract; --gate: the compatibility gate',
    load: async () => (await import('./diff.js')).command,
  },
  {
    name: 'release',
    summary: 'release the current contract as info.version (baseline of the compatibility gate and the changelog)',
    load: async () => (await import('./release.js')).command,
  },
  {
    name: 'listen',
    summary: "forward a sandbox gateway's webhook events to a local receiver, signed, until Ctrl-C (like stripe listen)",
    load: async () => (await import('./listen.js')).command,
  },
  {
    name: 'trigger',
    summary: 'make a sandbox gateway emit a real webhook event (creates the merchant, order, refund or settlement it needs)',
    load: async () => (await import('./trigger.js')).command,
  },
];
