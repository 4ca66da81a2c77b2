/** What the zod plugin's test reads from a generated `zod/schemas.gen.ts` (imported at run time from a temp dir). */
import type { z } from 'zod';

type Body = z.ZodType;

export declare const requestBodies: Record<string, Body> & { createBook: Body };
export declare const responseBodies: Record<string, Record<string, Body>> & {
  listBooks: { '200': Body };
  getBook: { '200': Body };
};
