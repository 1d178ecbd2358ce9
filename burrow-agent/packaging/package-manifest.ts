/**
 * The package.json of the installable Burrow, derived from the workspace's manifests so nothing is written
 * twice: the version from burrow-agent/package.json, the engines and description from the root, and as
 * dependencies exactly the third-party packages the bundles import (bundle.ts), each at the version the
 * workspace package that imports it pins. A package imported but declared nowhere, or pinned at two
 * versions, is an error: the package must install what the tests ran against.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_DIR } from './bundle.js';

/** The npm name of the installable Burrow (`burrow` itself is taken on npm); its command is `burrow`. */
export const PACKAGE_NAME = 'burrow-terminal';

/** Packages the agent loads without importing them, which the bundles' import list cannot show. */
const RUNTIME_ONLY_DEPENDENCIES = [
  // pty-process.ts loads node-pty's native binding through createRequire('node-pty/lib/utils.js').
  'node-pty',
];

interface Manifest {
  readonly name?: string;
  readonly version?: string;
  readonly description?: string;
  readonly engines?: Record<string, string>;
  readonly dependencies?: Record<string, string>;
}

const REPO_DIR = join(AGENT_DIR, '..');
/** The workspace packages bundled into the agent; their dependencies become the package's. */
const BUNDLED_WORKSPACES = ['burrow-agent', 'protocol', 'crypto'] as const;

function readManifest(dir: string): Manifest {
  return JSON.parse(readFileSync(join(REPO_DIR, dir, 'package.json'), 'utf8')) as Manifest;
}

/** Exact versions only (the project pins every dependency): `1.2.3` or `1.2.3-pre.4`. */
const EXACT_VERSION = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;

/** name → pinned version, over the bundled workspaces; throws on a clash or a range. */
export function pinnedDependencies(manifests: Readonly<Record<string, Manifest>>): Map<string, string> {
  const pins = new Map<string, { version: string; from: string }>();
  for (const [from, m] of Object.entries(manifests)) {
    for (const [name, version] of Object.entries(m.dependencies ?? {})) {
      if (name.startsWith('@burrow/')) continue;
      if (!EXACT_VERSION.test(version))
        throw new RangeError(`${from}/package.json pins ${name} as "${version}"; use an exact version`);
      const seen = pins.get(name);
      if (seen !== undefined && seen.version !== version)
        throw new RangeError(`${name} is ${seen.version} in ${seen.from} but ${version} in ${from}`);
      pins.set(name, { version, from });
    }
  }
  return new Map([...pins].map(([name, { version }]) => [name, version]));
}

export interface PackageManifestOptions {
  /** Package names the bundles import. */
  readonly imports: ReadonlySet<string>;
  /** Stamp this version instead of burrow-agent's (a pre-release; the upgrade test's two tarballs). */
  readonly version?: string | undefined;
}

export function packageManifest(opts: PackageManifestOptions): Record<string, unknown> {
  const root = readManifest('.');
  const manifests = Object.fromEntries(BUNDLED_WORKSPACES.map((dir) => [dir, readManifest(dir)]));
  const pins = pinnedDependencies(manifests);
  const dependencies: Record<string, string> = {};
  for (const name of [...opts.imports, ...RUNTIME_ONLY_DEPENDENCIES].sort()) {
    const version = pins.get(name);
    if (version === undefined)
      throw new RangeError(
        `the agent imports ${name}, but none of ${BUNDLED_WORKSPACES.join(', ')} declares it as a dependency`,
      );
    dependencies[name] = version;
  }
  const version = opts.version ?? manifests['burrow-agent']!.version;
  if (version === undefined || !EXACT_VERSION.test(version))
    throw new RangeError(`not a version: ${String(version)}`);
  return {
    name: PACKAGE_NAME,
    version,
    description: root.description,
    keywords: ['terminal', 'pty', 'remote', 'notifications', 'pwa', 'coding-agent'],
    type: 'module',
    bin: { burrow: 'bin/burrow.js' },
    files: ['bin/', 'dist/', 'shell-integration/', 'pocket-build.json'],
    // install-service and the shell integration know Linux (systemd) and macOS (launchd).
    os: ['linux', 'darwin'],
    engines: root.engines,
    dependencies,
  };
}
