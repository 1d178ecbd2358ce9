/**
 * in-page.ts as one script a page can run: bundled with esbuild (the bundler tsx and Vite already bring),
 * once per test process, and injected by the page driver into each new document on its first query.
 */
import { join } from 'node:path';
import { build } from 'esbuild';

let bundle: Promise<string> | undefined;

export function inPageScript(): Promise<string> {
  bundle ??= build({
    entryPoints: [join(import.meta.dirname, 'in-page.ts')],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    write: false,
    logLevel: 'silent',
    // testing-library reads process.env for its debug output only.
    define: { 'process.env.NODE_ENV': '"production"', 'process.env.DEBUG_PRINT_LIMIT': '"0"' },
  }).then((r) => r.outputFiles[0]!.text);
  return bundle;
}
