import { describe, expect, it } from 'vitest';
import { formatReport, type DiffReport } from './report.js';
import type { Change } from './types.js';

const change = (classification: Change['classification'], kind: string, message: string): Change => ({
  classification,
  kind,
  document: 'openapi',
  pointer: `/components/schemas/Order/properties/${kind}`,
  location: `/paths/~1orders/get/responses/200/content/application~1json/schema/properties/${kind}`,
  message,
});

const report: DiffReport = {
  from: 'origin/main:openapi/openapi.yaml',
  to: 'openapi/openapi.yaml',
  changes: [change('breaking', 'property-removed', 'GET /orders: removed | gone'), change('annotation', 'description-changed', 'GET /orders: reworded')],
};

describe('formatReport', () => {
  it.each([
    { format: 'text' as const, contains: ['origin/main:openapi/openapi.yaml -> openapi/openapi.yaml: 1 breaking, 0 non-breaking, 1 annotation', 'Breaking changes (1):', '  property-removed  openapi#/components/schemas/Order/properties/property-removed', 'Annotations (1):'], lacks: 'Non-breaking changes' },
    { format: 'markdown' as const, contains: ['# API changes: origin/main:openapi/openapi.yaml -> openapi/openapi.yaml', '## Breaking changes', '| property-removed | `openapi#/components/schemas/Order/properties/property-removed` | GET /orders: removed \\| gone |'], lacks: '## Non-breaking changes' },
    { format: 'json' as const, contains: ['"breaking": 1', '"kind": "property-removed"'], lacks: '"classification": "non-breaking"' },
  ])('$format', ({ format, contains, lacks }) => {
    const text = formatReport(report, format);
    for (const piece of contains) expect(text).toContain(piece);
    expect(text).not.toContain(lacks);
  });

  it('json carries every change with its pointer and location', () => {
    expect(JSON.parse(formatReport(report, 'json')).changes).toEqual(report.changes);
  });
});
