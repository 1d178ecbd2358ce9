/**
 * The HOME every shell a test starts gets: one empty directory per test process, in the OS temp dir. (Vitest
 * ends its workers without running `exit` handlers, so like the suite's other temp fixtures it stays there.)
 *
 * The shells are real, but the developer's dotfiles are not what is under test, and they can break it. Seen
 * on this machine (2 Dec 2026): ~/.bashrc gained `eval "$(pyenv init -)"`, whose `pyenv rehash` takes a
 * lock file; a test that killed its shell mid-rehash left the lock behind, and from then on every
 * interactive bash waited 60 s for it — the Pocket e2e's new shell showed nothing for 20 s. Tests that are
 * about startup files write their own into a HOME of their own (shells.pty.test.ts, attention-fixture.ts).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let home: string | undefined;

export function testHome(): string {
  home ??= mkdtempSync(join(tmpdir(), 'burrow-test-home-'));
  return home;
}
