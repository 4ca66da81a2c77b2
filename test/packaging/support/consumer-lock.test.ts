import { describe, expect, it } from 'vitest';
import { consumerLock, type Lockfile } from './consumer-lock.js';

/** A repository lock in the shape npm writes for workspaces: links at node_modules/, the packages in their folders. */
const REPO: Lockfile = {
  lockfileVersion: 3,
  packages: {
    '': { dependencies: {} },
    'node_modules/@acme/core': { resolved: 'packages/core', link: true },
    'node_modules/@acme/cli': { resolved: 'packages/cli', link: true },
    'packages/core': { version: '1.0.0', dependencies: { lib: '^2.0.0', tool: '^1.0.0' }, devDependencies: { vitest: '^4.0.0' } },
    'packages/core/node_modules/tool': { version: '1.4.0', dependencies: { lib: '^2.1.0' } },
    'packages/cli': {
      version: '1.0.0',
      dependencies: { '@acme/core': '1.0.0', bundler: '^3.0.0' },
      peerDependencies: { typescript: '^5.0.0', redoc: '^2.0.0' },
      peerDependenciesMeta: { redoc: { optional: true } },
    },
    'node_modules/lib': { version: '2.3.0', dev: true },
    'node_modules/tool': { version: '0.9.0', dev: true },
    'node_modules/bundler': { version: '3.1.0', optionalDependencies: { 'bundler-linux': '3.1.0', 'bundler-mac': '3.1.0' } },
    'node_modules/bundler-linux': { version: '3.1.0', devOptional: true, os: ['linux'] },
    'node_modules/bundler-mac': { version: '3.1.0', devOptional: true, os: ['darwin'] },
    'node_modules/typescript': { version: '5.9.3', devOptional: true, peer: true },
    'node_modules/redoc': { version: '2.5.0', dev: true },
    'node_modules/vitest': { version: '4.1.0', dev: true },
  },
};
const TARBALLS = {
  '@acme/core': { spec: 'file:../t/acme-core-1.0.0.tgz', integrity: 'sha512-core' },
  '@acme/cli': { spec: 'file:../t/acme-cli-1.0.0.tgz', integrity: 'sha512-cli' },
};

describe('consumerLock', () => {
  const lock = consumerLock(REPO, TARBALLS, { typescript: '~5.9.3' }, 'consumer');

  it.each([
    [
      'a tarball in place of its workspace folder',
      'node_modules/@acme/core',
      { resolved: 'file:../t/acme-core-1.0.0.tgz', integrity: 'sha512-core' },
    ],
    ['a nested dependency moves with its workspace', 'node_modules/@acme/core/node_modules/tool', { version: '1.4.0' }],
    ['a hoisted dependency stays at the root', 'node_modules/lib', { version: '2.3.0' }],
    ['a required peer is installed', 'node_modules/typescript', { version: '5.9.3' }],
    ['a platform package reached through optionalDependencies is optional', 'node_modules/bundler-mac', { optional: true, os: ['darwin'] }],
  ])('%s', (_, location, expected) => {
    expect(lock.packages[location]).toMatchObject(expected);
  });

  it('drops what only the repository needs: dev dependencies, optional peers, dev and peer flags', () => {
    expect(Object.keys(lock.packages).sort()).toEqual(
      [
        '',
        'node_modules/@acme/cli',
        'node_modules/@acme/core',
        'node_modules/@acme/core/node_modules/tool',
        'node_modules/bundler',
        'node_modules/bundler-linux',
        'node_modules/bundler-mac',
        'node_modules/lib',
        'node_modules/typescript',
      ].sort(),
    );
    expect(lock.packages['node_modules/lib']).not.toHaveProperty('dev');
    expect(lock.packages['node_modules/typescript']).not.toHaveProperty('peer');
    expect(lock.packages['node_modules/@acme/core']).not.toHaveProperty('devDependencies');
    expect(lock.packages['']?.dependencies).toEqual({
      '@acme/core': 'file:../t/acme-core-1.0.0.tgz',
      '@acme/cli': 'file:../t/acme-cli-1.0.0.tgz',
      typescript: '~5.9.3',
    });
  });

  it('fails naming a declared range the locked version does not meet, and a dependency the lock lacks', () => {
    const broken: Lockfile = {
      ...REPO,
      packages: {
        ...REPO.packages,
        'packages/core': { version: '1.0.0', dependencies: { lib: '^3.0.0', missing: '^1.0.0' } },
      },
    };
    expect(() => consumerLock(broken, TARBALLS, {}, 'consumer')).toThrow(
      /@acme\/core declares lib@\^3\.0\.0, but the repository installs 2\.3\.0[\s\S]*@acme\/core needs missing@\^1\.0\.0/,
    );
  });
});
