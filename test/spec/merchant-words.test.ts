/**
 * Words for merchants (D293 client pages carry no decision numbers): the pages Paygate's docs site shows the API's clients (the reference built from
 * openapi.json, the events, errors and changelog pages, and any other page but the design record decisions.html,
 * which is numbered by nature) carry no internal references: no decision or issue numbers, no "original/source
 * specification" (the document Paygate was built from, which a merchant never saw). Their text comes from openapi/
 * (descriptions), docs/errors.md (the error catalogue) and openapi/released/allowed-breaking-changes.yaml (the
 * changelog's "Reviewed:" reasons): a finding names the page and the words around it, to be fixed at that source.
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { command as docs } from '../../generators/src/cli/commands/docs.js';
import { runCommand } from '../../generators/src/cli/run-command.js';
import { findInternalReferences, visibleText } from '../support/internal-references.js';
import { escapePointerToken } from '@paygate/contract/json';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Every string of a JSON value (descriptions, summaries, the error catalogue, examples), with its JSON pointer. */
function strings(value: unknown, pointer = ''): { pointer: string; text: string }[] {
  if (typeof value === 'string') return [{ pointer, text: value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => strings(v, `${pointer}/${i}`));
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => strings(v, `${pointer}/${escapePointerToken(k)}`));
  return [];
}

let site: string;
beforeAll(async () => {
  site = await mkdtemp(path.join(tmpdir(), 'paygate-merchant-words-'));
  let err = '';
  const code = await runCommand(docs, ['--out', site, '--skip-redoc'], {
    stdout: () => undefined,
    stderr: (text) => void (err += text),
    cwd: ROOT,
  });
  if (code !== 0) throw new Error(`paygate docs failed (${code}):\n${err}`);
}, 180_000);
afterAll(async () => {
  if (site) await rm(site, { recursive: true, force: true });
});

describe('findInternalReferences', () => {
  it.each([
    ['(issue 22, D110)', 2],
    ['see D77 and decisions A26', 2],
    ['as the original specification shows', 1],
    ['not in the source specification', 1],
    ['order OD1000000000000001, card 4242, HTTP 503, D3-secure', 0],
    ['see the [design decisions](decisions.html)', 0],
  ])('%j: %i finding(s)', (text, count) => {
    expect(findInternalReferences('x', text)).toHaveLength(count);
  });
});

describe("merchant-facing pages of Paygate's docs site (D293)", () => {
  it('the site has the pages this test reads', async () => {
    const files = await readdir(site);
    expect(files).toEqual(expect.arrayContaining(['index.html', 'openapi.json', 'events.html', 'errors.html', 'changelog.html']));
  });

  it('no page but decisions.html shows an internal reference', async () => {
    const pages = (await readdir(site)).filter((f) => f.endsWith('.html') && f !== 'decisions.html').sort();
    const findings: string[] = [];
    for (const page of pages) findings.push(...findInternalReferences(page, visibleText(await readFile(path.join(site, page), 'utf8'))));
    expect(findings).toEqual([]);
  });

  it('the reference (openapi.json: every description, summary, example and catalogue entry) has none', async () => {
    const document: unknown = JSON.parse(await readFile(path.join(site, 'openapi.json'), 'utf8'));
    const findings = strings(document).flatMap(({ pointer, text }) => findInternalReferences(`openapi.json#${pointer}`, text));
    expect(findings).toEqual([]);
  });
});
