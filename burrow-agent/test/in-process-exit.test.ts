import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { testHome } from './test-home.js';

describe('sessions in-process', () => {
  it('keep the process alive while a snapshot is owed, and nothing once killed (the screen worker holds it only while busy)', async () => {
    const started = Date.now();
    const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        [
          '--import',
          'tsx',
          '--conditions=source',
          join(import.meta.dirname, 'in-process-session.fixture.ts'),
        ],
        { env: { ...process.env, HOME: testHome() }, timeout: 30_000 },
        (err, stdout, stderr) => resolve({ code: err ? (child.exitCode ?? -1) : 0, out: stdout + stderr }),
      );
    });
    // With the worker never holding the process, it ended mid-await (exit 13) before the snapshot came.
    expect(r.out).toContain('snapshot ok');
    expect(r.out).toContain('done');
    // With the worker always holding it, the process stayed up until the timeout killed it.
    expect(r.code, r.out).toBe(0);
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 40_000);
});
