/**
 * A corpus worker (a child process the runner forks and reuses across documents, D400): reads one document at a time
 * from the runner over IPC, runs both tools on it (check-document.ts) and answers with the result and its resident
 * memory. The runner bounds each document's time and memory and forks a fresh worker when one is killed, crashes, or
 * has grown (generated modules stay loaded in a process: recycling is what frees them).
 */
import { readFile } from 'node:fs/promises';
import { SharedCompiler } from './compiler.js';
import { checkDocument, type CheckInput } from './check-document.js';

const root = process.env['CORPUS_ROOT']!;
const compiler = new SharedCompiler(root);
// a generated module's stray rejection or a socket error must cost its document, never the worker
process.on('unhandledRejection', () => {});
process.on('uncaughtException', (error) => process.send?.({ type: 'log', line: `uncaught: ${error.message}` }));

process.on('message', (message: { type: 'check'; input: CheckInput }) => {
  if (message.type !== 'check') return;
  const { input } = message;
  void checkDocument(input, compiler, async () => JSON.parse(await readFile(input.file, 'utf8')))
    .then((result) => process.send?.({ type: 'result', result: { ...result, rssMiB: Math.round(process.memoryUsage().rss / 2 ** 20) } }))
    .catch((error: Error) => process.send?.({ type: 'failed', message: String(error.stack ?? error).slice(0, 2000) }));
});
// the runner gone (stopped, crashed): so is its worker, never an orphan holding a core
process.on('disconnect', () => process.exit(0));
process.send?.({ type: 'ready' });
