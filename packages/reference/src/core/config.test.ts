import { describe, expect, it } from 'vitest';
import { loadConfig, TRUST_PROXY_TRUE_REFUSED } from './config.js';
import { generateMasterKey } from './secret-box.js';

/** PAYGATE_TRUST_PROXY (D98 trust-everything proxy setting refused in production): `true` trusts anyone's X-Forwarded-For, so production refuses it; hop counts and subnets are the way. */
describe('PAYGATE_TRUST_PROXY', () => {
  const production = { PAYGATE_MODE: 'production', PAYGATE_MASTER_KEY: generateMasterKey() };
  const sandbox = { PAYGATE_MODE: 'sandbox' };

  it.each([
    ['true', 'production'],
    ['0.0.0.0/0', 'production'],
    ['loopback, ::/0', 'production'],
  ])('%s is refused in %s mode, naming hop counts and subnets as the way', (value, _mode) => {
    expect(() => loadConfig({ ...production, PAYGATE_TRUST_PROXY: value })).toThrow(TRUST_PROXY_TRUE_REFUSED);
    expect(TRUST_PROXY_TRUE_REFUSED).toMatch(/PAYGATE_TRUST_PROXY=1/);
  });

  it.each([
    [production, '1', 1],
    [production, '2', 2],
    [production, '10.0.0.0/8', '10.0.0.0/8'],
    [production, 'loopback, 10.1.2.3, fd00::/8', 'loopback, 10.1.2.3, fd00::/8'],
    [production, undefined, undefined],
    [production, 'false', undefined],
    [sandbox, 'true', true],
    [sandbox, 'uniquelocal', 'uniquelocal'],
  ])('%j with %j is %j', (env, value, expected) => {
    expect(loadConfig({ ...env, ...(value === undefined ? {} : { PAYGATE_TRUST_PROXY: value }) }).trustProxy).toEqual(expected);
  });

  it.each(['yes', '10.0.0.0/99', 'proxy.internal'])('%j is refused at start with the accepted forms', (value) => {
    expect(() => loadConfig({ ...sandbox, PAYGATE_TRUST_PROXY: value })).toThrow(
      /must be a hop count or comma-separated addresses, subnets/,
    );
  });
});
