import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIo } from './commands.js';
import { ExitCode } from './exit-codes.js';
import { main } from './main.js';

function io() {
  const out = { stdout: '', stderr: '' };
  const sink = (k: 'stdout' | 'stderr') => ({
    write: (s: string) => {
      out[k] += s;
      return true;
    },
  });
  const value = {
    stdin: process.stdin,
    stdout: sink('stdout'),
    stderr: sink('stderr'),
    env: { BURROW_STATE_DIR: join(mkdtempSync(join(tmpdir(), 'burrow-cli-main-')), 'state') },
    cwd: '/',
  } as unknown as CliIo;
  return { io: value, out };
}

describe('burrow argument parsing', () => {
  it('a device id that begins with "-", typed as `burrow devices` printed it, is the id, not an option', async () => {
    const { io: cliIo, out } = io();
    // No daemon runs for this state dir: reaching "not running" (3) means the id parsed as a positional.
    const code = await main(['devices', 'revoke', '--4CRnXnaG1BED1I'], cliIo);
    expect(out.stderr).not.toMatch(/Unknown option/);
    expect(code).toBe(ExitCode.DaemonNotRunning);
  });

  it('a real unknown option is still refused with the usage', async () => {
    const { io: cliIo, out } = io();
    expect(await main(['devices', '--jsn'], cliIo)).toBe(ExitCode.Usage);
    expect(out.stderr).toMatch(/Unknown option '--jsn'/);
  });
});
