#!/usr/bin/env node
/**
 * `npm run burrow -- COMMAND …` from the repository root: the `burrow` CLI on the development Burrow that
 * `npm start` runs (issue 17 item 1), whatever directory the shell is in and without an absolute
 * BURROW_STATE_DIR to type. The state is `.burrow-dev/burrow-state`, or `$BURROW_DEV_DIR/burrow-state` when
 * `npm start` was given another directory. Plain JavaScript, so it starts as fast as the CLI itself.
 */
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const devDir = process.env.BURROW_DEV_DIR || join(root, '.burrow-dev');
if (!isAbsolute(devDir)) {
  process.stderr.write(`npm run burrow: BURROW_DEV_DIR must be an absolute path, got "${devDir}"\n`);
  process.exit(2);
}
if (!existsSync(join(root, 'burrow-agent', 'dist', 'cli', 'main.js'))) {
  process.stderr.write(
    'npm run burrow: the CLI is not built yet: run `npm start` (or `npm run build`) first\n',
  );
  process.exit(1);
}
process.env.BURROW_STATE_DIR = join(devDir, 'burrow-state');
// The CLI reads its arguments from process.argv.slice(2): this script's own arguments.
await import('../burrow-agent/bin/burrow.js');
