/**
 * What emitters read. Emitters read the intermediate model; only the document emitters (the embedded API document)
 * get the bundled document, and the type layer is computed once by the pipeline.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { buildModel } from '../model/build.js';
import { CORE_EMITTERS, readDocsSources } from '../pipeline.js';
import { createDocsEmitters } from './docs-site.js';
import { createEmitContext, runEmitter, type EmitContext } from './context.js';
import { createTemplateEngine } from './templates.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const ALL_EMITTERS = [...CORE_EMITTERS, ...createDocsEmitters(readDocsSources(ROOT))];

const document = {
  openapi: '3.1.0',
  info: { title: 'Inputs', version: '1' },
  paths: { '/x': { get: { operationId: 'getX', responses: { '200': { description: 'ok' } } } } },
};

describe('emitter inputs', () => {
  it("only the api-document emitters (the contract's and the docs site's) read the bundled document", () => {
    expect(ALL_EMITTERS.filter((e) => e.readsDocument === true).map((e) => e.name)).toEqual(['contract/api-document', 'docs/api-document']);
  });

  it('model emitters get a frozen context without the document', async () => {
    const model = buildModel(document, { source: 'inputs.yaml' });
    const contexts = createEmitContext({ model, document, templates: createTemplateEngine() });
    expect('document' in contexts.context).toBe(false);
    expect(Object.isFrozen(contexts.context)).toBe(true);
    expect(contexts.documentContext.document).toBe(document);
    const seen: string[] = [];
    for (const emitter of ALL_EMITTERS) {
      const recording = new Proxy(emitter.readsDocument === true ? contexts.documentContext : contexts.context, {
        get(target, key, receiver) {
          if (key === 'document') seen.push(emitter.name);
          return Reflect.get(target, key, receiver) as unknown;
        },
      }) as EmitContext;
      await runEmitter(emitter, { context: recording, documentContext: recording as never });
    }
    expect(seen).toEqual(['contract/api-document', 'docs/api-document']);
  });
});
