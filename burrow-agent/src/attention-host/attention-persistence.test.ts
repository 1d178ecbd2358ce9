import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { AttentionPersistence, PERSIST_DEBOUNCE_MS, PERSIST_RETRY_MS } from './attention-persistence.js';
import { ATTENTION_FILE_NAME, type PersistedSession } from './attention-store.js';

let dir: string;
const logs: string[] = [];
const session = (todo: boolean): PersistedSession => ({
  id: 'abcdefgh',
  name: 'build',
  command: [],
  cwd: '/tmp',
  createdAt: 1,
  alert: { todo },
});
const saved = () => JSON.parse(readFileSync(join(dir, ATTENTION_FILE_NAME), 'utf8')).sessions;
/** Makes the file's path a non-empty directory, so every atomic rename onto it fails (also as root). */
const breakTheFile = () => {
  rmSync(join(dir, ATTENTION_FILE_NAME), { force: true });
  mkdirSync(join(dir, ATTENTION_FILE_NAME, 'blocker'), { recursive: true });
};
const repairTheFile = () => rmSync(join(dir, ATTENTION_FILE_NAME), { recursive: true, force: true });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'burrow-attn-persist-'));
  logs.length = 0;
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
  rmSync(dir, { recursive: true, force: true });
});

describe('AttentionPersistence', () => {
  it('a write that failed (disk full, read-only) is retried with the state as it is by then', () => {
    const p = new AttentionPersistence(dir, (_l, m) => logs.push(m));
    let state = [session(true)];
    breakTheFile();
    p.schedule(() => state);
    vi.advanceTimersByTime(PERSIST_DEBOUNCE_MS);
    expect(logs.filter((l) => l.includes('failed'))).toHaveLength(1);
    // Still failing: retried, and logged once per failing run, not per try.
    vi.advanceTimersByTime(PERSIST_RETRY_MS * 3);
    expect(logs.filter((l) => l.includes('failed'))).toHaveLength(1);
    state = [session(false), { ...session(true), id: 'mnpqrstu' }];
    repairTheFile();
    vi.advanceTimersByTime(PERSIST_RETRY_MS);
    expect(saved()).toEqual(state);
    expect(logs.at(-1)).toMatch(/saved after an earlier failure/);
    // Nothing left to do: no further timer.
    expect(vi.getTimerCount()).toBe(0);
    p.dispose();
  });

  it('settings that failed to save are saved by the next retry', () => {
    const p = new AttentionPersistence(dir, (_l, m) => logs.push(m));
    mkdirSync(join(dir, 'attention-settings.json', 'blocker'), { recursive: true });
    p.saveSettings(
      { inactivityTimeoutMs: 60_000, deferAlertsUntilQuiet: false, pushEnabled: true, pushDelayMs: 10_000 },
      ['npx claude'],
    );
    expect(logs.at(-1)).toMatch(/saving settings failed/);
    rmSync(join(dir, 'attention-settings.json'), { recursive: true });
    vi.advanceTimersByTime(PERSIST_RETRY_MS);
    expect(p.loadSettings().watchRules).toEqual(['npx claude']);
    expect(vi.getTimerCount()).toBe(0);
    writeFileSync(join(dir, 'unused'), '');
    p.dispose();
  });
});
