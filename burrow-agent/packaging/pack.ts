/**
 * `npm run package`: the installable Burrow as one npm tarball (`burrow-terminal-<version>.tgz`), which
 * `npm install -g ./burrow-terminal-<version>.tgz` installs on a machine with nothing but Node — no checkout.
 *
 * It stages the package in a directory of its own (burrow-agent/dist-package/ by default) — the bundles
 * (bundle.ts), bin/burrow.js, the shell-integration scripts, the manifest of the Pocket build this Burrow
 * vouches for (README "Pocket's code comes from the relay"), a README and the derived package.json
 * (package-manifest.ts) — and runs `npm pack` on it. The workspace's own burrow-agent/ stays the development
 * package: its bin runs tsc's output, and nothing here writes into it.
 *
 * Reuses the build: Pocket's manifest must exist (`npm run build` writes it); the agent is bundled from its
 * sources, so a stale tsc build cannot end up in the package.
 */
import { spawnSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { decodePocketBuildManifest } from '@burrow/protocol';
import { AGENT_DIR, bundleAgent } from './bundle.js';
import { PACKAGE_NAME, packageManifest } from './package-manifest.js';

const REPO_DIR = join(AGENT_DIR, '..');
/** node-pty compiles in its install script, which npm ≥ 11.16 runs only when allowed by name. */
export const INSTALL_COMMAND = 'npm install -g --allow-scripts=node-pty';
/** What Pocket's build writes (R-BUILD-1); the package ships it as pocket-build.json. */
export const POCKET_MANIFEST = join(REPO_DIR, 'pocket-pwa', 'dist', 'pocket-build.json');
export const DEFAULT_STAGING_DIR = join(AGENT_DIR, 'dist-package', PACKAGE_NAME);

export interface PackOptions {
  /** Where the tarball goes. */
  readonly outDir: string;
  /** Where the package is staged (emptied first). */
  readonly stagingDir?: string;
  /** Stamp another version than burrow-agent/package.json's. */
  readonly version?: string | undefined;
  /** Progress lines (stderr in the CLI). */
  readonly log?: (line: string) => void;
}

export interface PackResult {
  readonly tarball: string;
  readonly name: string;
  readonly version: string;
  /** Bytes of the .tgz and of its contents. */
  readonly size: number;
  readonly unpackedSize: number;
  readonly files: readonly string[];
  /** The dependencies npm installs with it. */
  readonly dependencies: Readonly<Record<string, string>>;
}

/** The newest modification time under `dir`, ms (skipping node_modules and build output). */
function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('dist')) continue;
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** The Pocket manifest's text, checked; throws with what to do when there is none. */
function pocketManifest(log: (line: string) => void): string {
  if (!existsSync(POCKET_MANIFEST))
    throw new Error(`${POCKET_MANIFEST} is missing: build Pocket first (npm run build)`);
  const text = readFileSync(POCKET_MANIFEST, 'utf8');
  decodePocketBuildManifest(text);
  if (newestMtime(join(REPO_DIR, 'pocket-pwa', 'src')) > statSync(POCKET_MANIFEST).mtimeMs)
    log(
      `warning: pocket-pwa/src changed after ${POCKET_MANIFEST} was built; run npm run build to vouch for it`,
    );
  return text;
}

/** Writes the package directory; returns its package.json. */
export async function stagePackage(
  dir: string,
  version: string | undefined,
  log: (line: string) => void = () => {},
): Promise<Record<string, unknown>> {
  const manifest = pocketManifest(log);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const started = Date.now();
  const { imports, files } = await bundleAgent(dir);
  log(`bundled ${files.join(', ')} in ${Date.now() - started} ms`);
  cpSync(join(AGENT_DIR, 'bin'), join(dir, 'bin'), { recursive: true });
  cpSync(join(AGENT_DIR, 'shell-integration'), join(dir, 'shell-integration'), { recursive: true });
  writeFileSync(join(dir, 'pocket-build.json'), manifest);
  cpSync(join(AGENT_DIR, 'packaging', 'package-readme.md'), join(dir, 'README.md'));
  const pkg = packageManifest({ imports, version });
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
  return pkg;
}

interface NpmPackEntry {
  filename: string;
  size: number;
  unpackedSize: number;
  files: { path: string }[];
}

/** Stages the package and runs `npm pack` on it. */
export async function packBurrow(opts: PackOptions): Promise<PackResult> {
  const log = opts.log ?? (() => {});
  const staging = opts.stagingDir ?? DEFAULT_STAGING_DIR;
  const pkg = await stagePackage(staging, opts.version, log);
  mkdirSync(opts.outDir, { recursive: true });
  const packed = spawnSync('npm', ['pack', staging, '--pack-destination', opts.outDir, '--json'], {
    encoding: 'utf8',
    cwd: opts.outDir,
    timeout: 120_000,
  });
  if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr || packed.error?.message}`);
  const [entry] = JSON.parse(packed.stdout) as NpmPackEntry[];
  if (entry === undefined) throw new Error(`npm pack printed no result: ${packed.stdout}`);
  return {
    tarball: join(opts.outDir, entry.filename),
    name: String(pkg.name),
    version: String(pkg.version),
    size: entry.size,
    unpackedSize: entry.unpackedSize,
    files: entry.files.map((f) => f.path).sort(),
    dependencies: pkg.dependencies as Record<string, string>,
  };
}

const USAGE = `Usage: npm run package [-- --out DIR] [--version VERSION] [--json]

Writes ${PACKAGE_NAME}-<version>.tgz (into the current directory unless --out); install it anywhere with
  ${INSTALL_COMMAND} ./${PACKAGE_NAME}-<version>.tgz
--version stamps another version than burrow-agent/package.json's (e.g. a pre-release).`;

async function main(): Promise<number> {
  let values: { out?: string; version?: string; json?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        out: { type: 'string' },
        version: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  // `npm run` starts scripts in the repository root; INIT_CWD is where the user typed it.
  const outDir = resolve(process.env.INIT_CWD ?? process.cwd(), values.out ?? '.');
  const log = (line: string) => process.stderr.write(`${line}\n`);
  try {
    const r = await packBurrow({ outDir, version: values.version, log });
    if (values.json) process.stdout.write(`${JSON.stringify(r, null, 2)}\n`);
    else
      process.stdout.write(
        [
          `${r.tarball}`,
          `  ${r.name}@${r.version}: ${(r.size / 1024).toFixed(0)} KiB packed, ${(r.unpackedSize / 1024).toFixed(0)} KiB unpacked, ${r.files.length} files`,
          `  dependencies: ${Object.entries(r.dependencies)
            .map(([n, v]) => `${n}@${v}`)
            .join(', ')}`,
          `  install: ${INSTALL_COMMAND} ${r.tarball}`,
          '',
        ].join('\n'),
      );
    return 0;
  } catch (err) {
    process.stderr.write(`npm run package: ${(err as Error).message}\n`);
    return 1;
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  process.exitCode = await main();
}
