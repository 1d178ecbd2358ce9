/**
 * First-load size of Pocket (DESIGN §9; issue 5 target ≤ 180 KB gzip JS). Builds nothing: measures the
 * existing `dist/` (run `npm run build -w pocket-pwa` first). Counts every script and stylesheet index.html
 * loads, plus their static `modulepreload`s, gzipped at level 9; lazy chunks (the terminal view) are listed
 * apart because they are not on the first load.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const FIRST_LOAD_JS_BUDGET_BYTES = 180 * 1024;
const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');

let html: string;
try {
  html = readFileSync(join(dist, 'index.html'), 'utf8');
} catch {
  console.error(`no ${dist}/index.html: run "npm run build -w pocket-pwa" first`);
  process.exit(1);
}

const refs = [...html.matchAll(/<(?:script[^>]*\ssrc|link[^>]*\shref)="\/([^"]+\.(?:js|css))"/g)].map(
  (m) => m[1]!,
);
const gz = (file: string) => gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;

let js = 0;
let css = 0;
for (const file of refs) {
  const size = gz(file);
  if (file.endsWith('.js')) js += size;
  else css += size;
  console.log(`first load  ${file.padEnd(40)} ${kb(size)} gzip`);
}
for (const file of readdirSync(join(dist, 'assets'))) {
  if (!refs.includes(`assets/${file}`))
    console.log(`lazy        assets/${file.padEnd(33)} ${kb(gz(`assets/${file}`))} gzip`);
}
console.log(
  `first-load JS ${kb(js)} gzip (budget ${kb(FIRST_LOAD_JS_BUDGET_BYTES)}, ratio ${(js / FIRST_LOAD_JS_BUDGET_BYTES).toFixed(2)}); CSS ${kb(css)} gzip`,
);
if (js > FIRST_LOAD_JS_BUDGET_BYTES) process.exitCode = 1;
