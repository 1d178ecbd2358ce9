/**
 * The state directory's ancestors are checked like the directory (issue 24.8). Ownership by another user runs
 * for real in tests/integration/attack-local.test.ts (it needs a second OS user); here: modes and symlinks.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureOwnerOnlyDir, StateDirError } from './state-dir.js';

const scratch: string[] = [];
const fresh = () => {
  const dir = mkdtempSync(join(tmpdir(), 'burrow-statedir-'));
  scratch.push(dir);
  return dir;
};
afterEach(() => {
  for (const d of scratch.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('ensureOwnerOnlyDir: the directories above', () => {
  it('makes missing parents and the directory, 0700', () => {
    const dir = join(fresh(), 'a', 'b', 'state');
    ensureOwnerOnlyDir(dir);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  it('refuses a parent writable by others, and names it; a sticky one (like /tmp) is fine', () => {
    const open = fresh();
    chmodSync(open, 0o777);
    expect(() => ensureOwnerOnlyDir(join(open, 'state'))).toThrow(StateDirError);
    expect(() => ensureOwnerOnlyDir(join(open, 'state'))).toThrow(`${open}, above the state directory`);
    const groupWritable = fresh();
    chmodSync(groupWritable, 0o770);
    expect(() => ensureOwnerOnlyDir(join(groupWritable, 'x', 'state'))).toThrow(
      /writable by others \(mode 770\)/,
    );
    const sticky = fresh();
    chmodSync(sticky, 0o1777);
    ensureOwnerOnlyDir(join(sticky, 'state'));
  });

  it('follows a symlink on the way and checks where it leads', () => {
    const base = fresh();
    const open = join(base, 'open');
    mkdirSync(open);
    chmodSync(open, 0o777);
    symlinkSync(open, join(base, 'link'));
    expect(() => ensureOwnerOnlyDir(join(base, 'link', 'state'))).toThrow(/writable by others/);
    const safe = join(base, 'safe');
    mkdirSync(safe, { mode: 0o755 });
    symlinkSync(safe, join(base, 'good'));
    ensureOwnerOnlyDir(join(base, 'good', 'state'));
  });
});
