/**
 * Issue 6, persistence across a daemon restart: only `todo` and the sanitized notification (and status for
 * diagnostics) survive, in the state directory; a session whose PTY died with the daemon is still listed,
 * exited, with its TODO and notification; nothing re-rings after the restore (alert-spec Public State).
 */
import { readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { ATTENTION_FILE_NAME, PERSIST_DEBOUNCE_MS } from '../../burrow-agent/src/attention-host/index.js';
import { AttentionFixture, PROMPT, sleep } from './attention-fixture.js';

const cleanup: string[] = [];

afterAll(() => {
  for (const dir of cleanup) rmSync(dir, { recursive: true, force: true });
});

it('keeps a TODO and its notification across a restart, listed as died-with-the-daemon, without a ring', async () => {
  const first = AttentionFixture.create();
  cleanup.push(join(first.stateDir, '..'));
  first.host.updateSettings({ pushDelayMs: 0 });
  const kept = await first.shell('bash');
  const other = await first.shell('bash');
  first.type(kept, String.raw`sleep 1.5; printf '\033]9;deploy finished\007'`);
  await first.waitFor(() => first.host.view(kept.id)?.ringing === true, 10_000, 'the ring');
  // The dismiss below makes the running command seen; on a loaded machine it could land before the shell's
  // command-finished mark, whose exit would then ring afresh. The person here answers after the prompt is back.
  await first.waitFor(
    () => first.output(kept.id).split(PROMPT.bash).length > 2, // the first prompt and the one after
    10_000,
    'the prompt after the command',
  );
  first.host.todo(kept.id, 'on');
  first.host.dismiss(kept.id);
  expect(first.host.view(kept.id)).toMatchObject({ ringing: false, todo: true });

  // The debounced write lands without a shutdown.
  const file = join(first.stateDir, ATTENTION_FILE_NAME);
  await first.waitFor(
    () => {
      try {
        return readFileSync(file, 'utf8').includes(kept.id);
      } catch {
        return false;
      }
    },
    PERSIST_DEBOUNCE_MS * 8,
    'the attention file',
  );
  expect(statSync(file).mode & 0o777).toBe(0o600);
  const saved = JSON.parse(readFileSync(file, 'utf8'));
  expect(saved.sessions).toHaveLength(1); // `other` holds no TODO: nothing of it is kept
  expect(Object.keys(saved.sessions[0]).sort()).toEqual([
    'alert',
    'command',
    'createdAt',
    'cwd',
    'id',
    'name',
  ]);
  expect(Object.keys(saved.sessions[0].alert).sort()).toEqual(['notification', 'status', 'todo']);
  expect(saved.sessions[0].alert.notification).toEqual({
    source: 'osc9',
    title: null,
    body: 'deploy finished',
  });
  await first.close(true);
  expect(other.running).toBe(false);

  // The next daemon, same state directory.
  const second = AttentionFixture.create(first.stateDir);
  try {
    const listed = second.registry.list().find((s) => s.id === kept.id);
    expect(listed).toMatchObject({ status: 'exited', diedWithDaemon: true, name: kept.name });
    expect(second.registry.list().some((s) => s.id === other.id)).toBe(false);
    expect(() => second.registry.get(kept.id)).toThrow(/died with the previous daemon/);
    expect(second.host.view(kept.id)).toMatchObject({
      ringing: false,
      todo: true,
      exited: true,
      notification: { source: 'osc9', body: 'deploy finished' },
    });
    expect(second.host.publicState(kept.id)).toMatchObject({ ringing: false, episodeId: null, todo: true });
    await sleep(1500);
    expect(second.host.view(kept.id)?.ringing).toBe(false);
    expect(second.pushes).toHaveLength(0);

    // Clearing it (burrow kill) removes it from the list, the engine and the file.
    await second.registry.kill(kept.id);
    expect(second.host.view(kept.id)).toBeNull();
    await second.waitFor(
      () => JSON.parse(readFileSync(file, 'utf8')).sessions.length === 0,
      PERSIST_DEBOUNCE_MS * 8,
      'the file to forget it',
    );
  } finally {
    await second.close(true);
  }
});
