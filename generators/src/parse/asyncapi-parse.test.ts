import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { filesRead, parseAsyncApiFile } from './asyncapi-parse.js';

const ROOT = `asyncapi: 3.0.0
info: { title: Events, version: 1.0.0 }
channels:
  orders:
    address: orders
    messages:
      created: { $ref: './messages.yaml#/created' }
`;
const message = (description: string) => `created:\n  name: created\n  payload: { type: object, description: ${description} }\n`;

let dir: string;
let root: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'paygate-asyncapi-parse-'));
  root = path.join(dir, 'asyncapi.yaml');
  await writeFile(root, ROOT);
  await writeFile(path.join(dir, 'messages.yaml'), message('first'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const payloadDescription = async (): Promise<unknown> => {
  const { document } = await parseAsyncApiFile(root);
  return document?.allMessages().all()[0]?.payload()?.description();
};

describe('parseAsyncApiFile', () => {
  it('parses once per content: the same files give the same parse', async () => {
    const first = await parseAsyncApiFile(root);
    const again = await parseAsyncApiFile(root);
    expect(again.document).toBe(first.document);
    expect(again.files).toEqual([root, path.join(dir, 'messages.yaml')].sort());
    expect(await payloadDescription()).toBe('first');
  });

  it('parses again after an edit to a file a $ref names, not only to the document', async () => {
    const before = await parseAsyncApiFile(root);
    await writeFile(path.join(dir, 'messages.yaml'), message('second'));
    expect((await parseAsyncApiFile(root)).document).not.toBe(before.document);
    expect(await payloadDescription()).toBe('second');
  });

  it.each([
    ['a reference to a URL', `${ROOT}x-extra: { $ref: 'https://schemas.example/x.yaml' }\n`],
    ['a file that is not YAML', 'asyncapi: [unclosed\n'],
  ])('keeps nothing for %s (no digest of what it reads)', async (_, text) => {
    const file = path.join(dir, 'other.yaml');
    await writeFile(file, text);
    expect((await filesRead(file)).key).toBeUndefined();
  });
});

describe('generate', () => {
  it("lists the AsyncAPI document's referenced files among its inputs (what `generate --watch` watches)", { timeout: 60_000 }, async () => {
    const { generate } = await import('../pipeline.js');
    const rootDir = path.resolve(import.meta.dirname, '../../..');
    const result = await generate({ rootDir, openapi: 'test/fixtures/mini/openapi.yaml', asyncapi: root, lint: 'skip' });
    expect(result.inputFiles).toEqual(expect.arrayContaining([root, path.join(dir, 'messages.yaml')]));
  });
});
