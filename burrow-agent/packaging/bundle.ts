/**
 * The agent's code for the package, bundled by esbuild from the TypeScript sources: the CLI (which is also the
 * daemon) and the screen worker, each one self-contained file. The workspace's own packages (`@burrow/protocol`,
 * `@burrow/crypto`) are bundled in: they are not published, and they are this same commit's code. Every
 * third-party package stays an import, declared as a dependency of the package: npm installs it with its
 * integrity check, `npm ls` / `npm audit` show the versions a user runs, each keeps its own licence file, and
 * node-pty (a native addon) could not be bundled anyway. An import of a package no workspace manifest declares
 * fails the bundle, so the package can never depend on something hoisted into the workspace by chance.
 *
 * The bundles sit where tsc puts the same modules (`dist/cli/main.js`, `dist/screen/screen-worker.js`) and
 * each bundled module sees the `import.meta.url` its tsc-compiled file would have (`moduleUrlPlugin`), so the
 * files the agent finds relative to its modules — package.json, bin/, shell-integration/, the screen worker,
 * the Pocket manifest — are found the same way in a checkout and in the package.
 */
import { readFile } from 'node:fs/promises';
import { builtinModules } from 'node:module';
import { dirname, join, posix, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin } from 'esbuild';

/** burrow-agent/ */
export const AGENT_DIR = fileURLToPath(new URL('../', import.meta.url));
const SRC_DIR = join(AGENT_DIR, 'src');

/** The entry points: source under src/, bundle at the same place under dist/ (tsc's layout). */
export const BUNDLE_ENTRIES = ['cli/main.ts', 'screen/screen-worker.ts'] as const;

/** `@scope/name/sub/path` → `@scope/name`; `name/sub` → `name`. */
export function packageNameOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

const toPosix = (p: string) => p.split(sep).join(posix.sep);

/**
 * Rewrites `import.meta.url` in each module of burrow-agent/src to the URL its tsc-compiled file has, relative
 * to the bundle it lands in: in `dist/cli/main.js`, src/screen/worker-screen-host.ts sees
 * `new URL('../screen/worker-screen-host.js', import.meta.url).href`, i.e. dist/screen/worker-screen-host.js.
 */
export function moduleUrlPlugin(bundleFile: string): Plugin {
  return {
    name: 'burrow-module-url',
    setup(b) {
      b.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (!args.path.startsWith(SRC_DIR + sep)) return undefined;
        const source = await readFile(args.path, 'utf8');
        if (!source.includes('import.meta.url')) return undefined;
        const compiled = join(AGENT_DIR, 'dist', relative(SRC_DIR, args.path)).replace(/\.ts$/, '.js');
        let rel = toPosix(relative(dirname(bundleFile), compiled));
        if (!rel.startsWith('.')) rel = `./${rel}`;
        const url = `new URL(${JSON.stringify(rel)}, import.meta.url).href`;
        return { contents: source.replaceAll('import.meta.url', url), loader: 'ts' };
      });
    },
  };
}

/** Bundles `@burrow/*`; leaves every other bare import external and records its package name in `seen`. */
function externalsPlugin(seen: Set<string>): Plugin {
  const builtins = new Set(builtinModules);
  return {
    name: 'burrow-externals',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('node:') || builtins.has(args.path)) return { external: true };
        const name = packageNameOf(args.path);
        if (name.startsWith('@burrow/')) return undefined;
        seen.add(name);
        return { path: args.path, external: true };
      });
    },
  };
}

export interface BundleResult {
  /** Package names the bundles import (besides Node's built-ins). */
  readonly imports: ReadonlySet<string>;
  /** Bundle files written, relative to the package directory. */
  readonly files: readonly string[];
}

/** Writes the bundles into `packageDir` (dist/cli/main.js, dist/screen/screen-worker.js). */
export async function bundleAgent(packageDir: string): Promise<BundleResult> {
  const imports = new Set<string>();
  const files: string[] = [];
  for (const entry of BUNDLE_ENTRIES) {
    const out = entry.replace(/\.ts$/, '.js');
    // Where the module URLs are computed from: the bundle's place in a checkout's dist/ (same layout).
    const bundleInCheckout = join(AGENT_DIR, 'dist', out);
    await build({
      entryPoints: [join(SRC_DIR, entry)],
      outfile: join(packageDir, 'dist', out),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      // The workspace packages' `source` export: their TypeScript, so the bundle never takes a stale build.
      conditions: ['source'],
      plugins: [externalsPlugin(imports), moduleUrlPlugin(bundleInCheckout)],
      // Readable code in the package: people who run it can read what it does.
      minify: false,
      sourcemap: false,
      legalComments: 'none',
      logLevel: 'warning',
    });
    files.push(posix.join('dist', out));
  }
  return { imports, files };
}
