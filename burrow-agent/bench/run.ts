/**
 * `npm run bench -w burrow-agent`: runs every bench/*-bench.ts in turn, each in its own process (so one
 * bench's heap and child processes never skew the next), and fails if any fails.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('.', import.meta.url));
const benches = readdirSync(dir)
  .filter((f) => f.endsWith('-bench.ts'))
  .sort();
let failed = 0;
for (const b of benches) {
  process.stdout.write(`\n=== ${b} ===\n`);
  const r = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--conditions=source', '--expose-gc', `${dir}${b}`],
    {
      stdio: 'inherit',
    },
  );
  if (r.status !== 0) {
    failed++;
    process.stdout.write(`${b} failed (exit ${r.status ?? r.signal})\n`);
  }
}
process.exit(failed === 0 ? 0 : 1);
