/** Operation page names (docs-reference.ts `operationPage`): safe characters, and never longer than a file system takes. */
import { describe, expect, it } from 'vitest';
import { operationPage, PAGE_ID_CHARS } from './docs-reference.js';

// Microsoft Graph beta's longest operationIds: a page named after one whole is past 255 bytes; alike but for their ends
const graph = (verb: string) =>
  `identityGovernance.entitlementManagement.accessPackageAssignments.accessPackage.accessPackageResourceRoleScopes.accessPackageResourceRole.accessPackageResource.accessPackageResourceScopes.accessPackageResource.${verb}AccessPackageResourceRoles`;

describe('operationPage', () => {
  it.each([
    ['getOrder', 'operation-getOrder.html'],
    ['orders.get/one', 'operation-orders-get-one.html'],
    ['a'.repeat(PAGE_ID_CHARS), `operation-${'a'.repeat(PAGE_ID_CHARS)}.html`],
  ])('%s: kept whole', (id, page) => {
    expect(operationPage(id)).toBe(page);
  });

  it('cuts a longer id and appends a digest of the whole id: within 255 bytes, distinct, stable', () => {
    const create = operationPage(graph('Create'));
    const update = operationPage(graph('Update'));
    expect(Buffer.byteLength(`operation-${graph('Create')}.html`)).toBeGreaterThan(255);
    expect(create).toMatch(/^operation-identityGovernance-entitlementManagement-[A-Za-z0-9_-]+-[0-9a-f]{12}\.html$/);
    expect(Buffer.byteLength(create)).toBeLessThanOrEqual('operation-'.length + PAGE_ID_CHARS + '.html'.length);
    expect(Buffer.byteLength(create)).toBeLessThan(255);
    expect(update).not.toBe(create);
    expect(operationPage(graph('Create'))).toBe(create);
  });
});
