/**
 * The typed schema model through the public entry (D475 typed schema model with one walker, a node beside every raw schema): a plugin written as README "Customise the output" shows,
 * importing `walkSchema` from `@paygate/cli`, reads typed nodes of a bundled multi-file spec (an external file's schema
 * becomes a named component whose refs are `ref` nodes).
 */
import { describe, expect, it } from 'vitest';
import { definePlugin, generate, walkSchema, type SchemaNode } from '../../generators/src/pipeline.js';
import { ROOT } from './fixtures.js';

describe('a plugin on the typed schema model', () => {
  it('walks every schema node of the model and writes what it found', async () => {
    const kinds = new Map<string, string[]>();
    const plugin = definePlugin({
      name: 'string-fields',
      emit(model, ctx) {
        const strings: string[] = [];
        for (const { name, node } of model.schemas) {
          const seen: string[] = [];
          walkSchema(node, {
            enter: (n: SchemaNode, path) => {
              seen.push(`${path.join('/') || '.'}:${n.kind}`);
              if (n.kind === 'string') strings.push(`${name}/${path.join('/')}`);
              return undefined;
            },
          });
          kinds.set(name, seen);
        }
        for (const op of model.operations)
          for (const r of op.responses)
            for (const c of r.content) kinds.set(`${op.operationId} ${r.status}`, [c.node?.kind ?? 'none', c.node?.pointer ?? '']);
        ctx.file('strings.gen.ts', `export const strings = ${JSON.stringify(strings)} as const;\n`);
      },
    });
    const result = await generate({
      rootDir: ROOT,
      openapi: 'test/fixtures/plugin-project/openapi.yaml',
      asyncapi: null,
      lint: 'skip',
      targets: [],
      out: { contract: 'generated/contract', server: 'generated/server', client: 'generated/client', webhooks: 'generated/webhooks' },
      plugins: [plugin],
    });
    const book = result.model.schemas.find((s) => s.node.kind === 'object');
    expect(book).toBeDefined();
    expect(kinds.get(book!.name)![0]).toBe('.:object');
    expect(kinds.get(book!.name)).toContain('properties/title:string');
    // the bundled $ref to the external file is a ref node naming the component it became
    expect(kinds.get('getBook 200')).toEqual(['ref', '#/paths/~1books~1{bookId}/get/responses/200/content/application~1json/schema']);
    expect(kinds.get('listBooks 200')![0]).toBe('array');
    const file = result.files.find((f) => f.path === 'generated/strings.gen.ts');
    expect(file?.contents).toContain(`export const strings = ["${book!.name}/properties/id","${book!.name}/properties/title"] as const;`);
  });
});
