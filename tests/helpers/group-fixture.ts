/**
 * A stand-in for `npm start`'s work, run by tests/integration/npm-start.test.ts: the real process-group
 * module (scripts/dev/process-group.ts) with two children — one that ends on SIGTERM and one that ignores it,
 * as wrangler's workerd does — so the test can prove every stop signal and the launcher's death end them all.
 * Prints `leader PID` and `child PID` lines, then waits.
 */
import { spawn } from 'node:child_process';
import { startOwnGroup } from '../../scripts/dev/process-group.js';

const group = startOwnGroup();
if (group !== null) {
  const polite = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  const stubborn = spawn(
    process.execPath,
    ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"],
    { stdio: 'ignore' },
  );
  process.stdout.write(`leader ${process.pid}\nchild ${polite.pid}\nchild ${stubborn.pid}\n`);
  group.onStop((why) => {
    process.stdout.write(`stopping: ${why}\n`);
    polite.kill('SIGTERM');
    // The stubborn one is left to the group's SIGKILL, as workerd is.
    polite.once('exit', () => group.exit(0));
  });
}
