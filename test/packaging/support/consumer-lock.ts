/**
 * A package-lock.json for the packaging test's fresh project, derived from this repository's: the @paygate packages
 * from their tarballs, every other package at the version (and the place in the tree) this repository installs and
 * tests, so `npm ci --offline` installs it from the npm cache `npm ci` filled, with no registry request.
 * Why: without a lockfile npm resolves every range against the registry's metadata (packuments), which `npm ci` never
 * caches, so on a fresh machine the "offline" install always failed over to the registry: about 50 s of the test's
 * wall time and much of its CPU (parsing the metadata of typescript and @types/node; docs/benchmarks.md, "npm test:
 * wall time and CPU"). What that resolution checked is checked here instead: every dependency range a package declares
 * is satisfied by the version the lockfile gives it (a range the repository's own install no longer satisfies fails).
 */
import semver from 'semver';

interface LockEntry {
  version?: string;
  resolved?: string;
  integrity?: string;
  link?: boolean;
  dev?: boolean;
  devOptional?: boolean;
  optional?: boolean;
  peer?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  [key: string]: unknown;
}

export interface Lockfile {
  name?: string;
  lockfileVersion: number;
  requires?: boolean;
  packages: Record<string, LockEntry>;
}

interface Tarball {
  /** The path a consumer's package.json gives (`file:../tarballs/paygate-server-0.1.0.tgz`). */
  spec: string;
  /** The tarball's `sha512-...` integrity. */
  integrity: string;
}

/** Where a workspace package sits in the repository's lock (`packages/server`), by package name. */
function workspaceLocations(repo: Lockfile): Map<string, string> {
  const out = new Map<string, string>();
  for (const [location, entry] of Object.entries(repo.packages)) {
    if (!location.startsWith('node_modules/') || entry.link !== true || entry.resolved === undefined) continue;
    out.set(location.slice('node_modules/'.length), entry.resolved);
  }
  return out;
}

/** Node's lookup from `from` (a lock location) for `name`: its own node_modules, then each enclosing one up to the root. */
function resolveIn(repo: Lockfile, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = base === '' ? `node_modules/${name}` : `${base}/node_modules/${name}`;
    if (repo.packages[candidate] !== undefined) return candidate;
    if (base === '') return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

/** The edges a package needs installed: dependencies, optional dependencies, peers not marked optional. */
function edges(entry: LockEntry): [name: string, range: string, optional: boolean][] {
  const out: [string, string, boolean][] = [];
  for (const [name, range] of Object.entries(entry.dependencies ?? {})) out.push([name, range, false]);
  for (const [name, range] of Object.entries(entry.optionalDependencies ?? {})) out.push([name, range, true]);
  for (const [name, range] of Object.entries(entry.peerDependencies ?? {}))
    if (entry.peerDependenciesMeta?.[name]?.optional !== true) out.push([name, range, false]);
  return out;
}

/**
 * The consumer's lockfile: `rootDependencies` (name -> range) resolved as the repository resolves them from its root,
 * the tarballs (name -> spec and integrity) in place of the workspace packages, and the closure of what they need.
 * Throws, naming every one, when a declared range is not met by the locked version or a needed package is not in the
 * repository's lock.
 */
export function consumerLock(
  repo: Lockfile,
  tarballs: Record<string, Tarball>,
  rootDependencies: Record<string, string>,
  name: string,
): Lockfile {
  const workspaces = workspaceLocations(repo);
  /** Consumer location of a repository location: a workspace's folder becomes its installed folder. */
  const toConsumer = (location: string): string => {
    for (const [pkg, folder] of workspaces) {
      if (location === folder) return `node_modules/${pkg}`;
      if (location.startsWith(`${folder}/`)) return `node_modules/${pkg}${location.slice(folder.length)}`;
    }
    return location;
  };
  const packages: Record<string, LockEntry> = {
    '': { name, dependencies: { ...Object.fromEntries(Object.entries(tarballs).map(([pkg, t]) => [pkg, t.spec])), ...rootDependencies } },
  };
  const problems: string[] = [];
  const queue: { from: string; entry: LockEntry; label: string; optional: boolean }[] = [
    { from: '', entry: { dependencies: rootDependencies }, label: name, optional: false },
  ];
  for (const [pkg, tarball] of Object.entries(tarballs)) {
    const folder = workspaces.get(pkg);
    const source = folder === undefined ? undefined : repo.packages[folder];
    if (folder === undefined || source === undefined) {
      problems.push(`${pkg}: not a workspace package of this repository`);
      continue;
    }
    const { name: _name, devDependencies: _dev, ...rest } = source;
    packages[`node_modules/${pkg}`] = { ...rest, resolved: tarball.spec, integrity: tarball.integrity };
    queue.push({ from: folder, entry: source, label: pkg, optional: false });
  }
  while (queue.length > 0) {
    const { from, entry, label, optional: parentOptional } = queue.shift()!;
    for (const [dep, range, edgeOptional] of edges(entry)) {
      const optional = edgeOptional || parentOptional;
      if (tarballs[dep] !== undefined) continue; // another tarball: installed at the root
      const location = resolveIn(repo, from, dep);
      const found = location === undefined ? undefined : repo.packages[location];
      if (location === undefined || found === undefined || found.link === true) {
        if (!optional) problems.push(`${label} needs ${dep}@${range}: not in this repository's package-lock.json`);
        continue;
      }
      if (
        semver.validRange(range) !== null &&
        found.version !== undefined &&
        !semver.satisfies(found.version, range, { includePrerelease: true })
      )
        problems.push(`${label} declares ${dep}@${range}, but the repository installs ${found.version}`);
      const target = toConsumer(location);
      const known = packages[target];
      // reached before: only whether it is optional can change (a package is optional when every path to it is)
      if (known !== undefined) {
        if (!optional) delete known.optional;
        continue;
      }
      // the repository's dev/peer flags say how its own root reaches a package; the consumer's are set anew
      const { dev: _dev, devOptional: _devOptional, optional: _optional, peer: _peer, ...copy } = found;
      packages[target] = optional ? { ...copy, optional: true } : copy;
      queue.push({ from: location, entry: found, label: `${dep}@${found.version ?? '?'}`, optional });
    }
  }
  if (problems.length > 0) throw new Error(`The consumer's lockfile cannot be derived:\n  ${problems.join('\n  ')}`);
  return { name, lockfileVersion: 3, requires: true, packages };
}
