/**
 * OpenAI's spec compiled by two files (D465 one OpenAI project directory for the real-world and events tests): the
 * real-world test (contract, server, client, webhooks) and the events test (contract and webhooks, with a type-level
 * test of its 16 webhook events) each generated and compiled it in a directory of its own, the contract and webhooks
 * (most of its generated code) checked by a strict tsc twice in every run. Both now compile in one directory: each
 * generates what it did before, and tsc, finding the other's build info (D464 generated projects compiled
 * incrementally in a directory per project), checks only the files that differ from the other file's compile.
 */
import { REALWORLD_SPECS } from '../../fixtures/realworld/specs.js';

const openai = REALWORLD_SPECS.find((spec) => spec.name === 'openai');
if (openai === undefined) throw new Error('test/fixtures/realworld/specs.ts lists no openai spec');

/** The spec's path and the directory both files compile it in. */
export const OPENAI = { openapi: openai.openapi, shareDir: 'openai' } as const;
