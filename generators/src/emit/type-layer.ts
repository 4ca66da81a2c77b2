import type { Emitter, EmitContext, GeneratedFile } from './context.js';
import { withHeader } from './context.js';

/** openapi-typescript output (`paths`, `components`, `operations`, `webhooks`) for one package. */
function typesFile(ctx: EmitContext, dir: string): Promise<GeneratedFile> {
  return ctx.typeLayer().then((types) => ({
    path: `${dir}/types.gen.ts`,
    contents: withHeader(ctx.header, types, ['// Type layer: openapi-typescript 7 output for the bundled document.']),
  }));
}

export const serverTypesEmitter: Emitter = {
  name: 'server/types',
  target: 'server',
  emit: async (ctx) => [await typesFile(ctx, ctx.out.server)],
};

export const clientTypesEmitter: Emitter = {
  name: 'client/types',
  target: 'client',
  emit: async (ctx) => [await typesFile(ctx, ctx.out.client)],
};
