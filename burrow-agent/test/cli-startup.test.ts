/**
 * A client command loads only what it uses. `burrow ls`, `status` and `--help` are short-lived clients of the
 * daemon, run by people and by scripts in loops (the tests alone run them thousands of times); with the
 * daemon's modules loaded too (xterm, node-pty, the attention engine, the remote stack: 258 modules) each
 * `burrow ls` took ~0.45 s of CPU on this machine, ~0.17 s without them (49 modules). Checked by listing what the
 * built CLI loads, not by timing it.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, buildOnce, tempStateEnv } from './cli-helpers.js';

const LIST_MODULES = new URL('./fixtures/list-loaded-modules.mjs', import.meta.url);

/** Modules only the daemon or one other command needs. */
const DAEMON_ONLY = [
  /\/dist\/daemon\/daemon\.js$/,
  /\/dist\/session\/session\.js$/,
  /\/dist\/attention-host\//,
  /\/dist\/screen\/screen-model\.js$/,
  /\/dist\/remote\//,
  /\/dist\/direct\//,
  /node_modules\/@xterm\//,
  /node_modules\/node-pty\//,
  /node_modules\/node-datachannel\//,
  /node_modules\/ws\//,
];

function loadedBy(...args: string[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'burrow-modules-'));
  try {
    const file = join(dir, 'loaded.txt');
    const r = spawnSync(process.execPath, ['--import', LIST_MODULES.href, BIN, ...args], {
      env: { ...tempStateEnv(), LOADED_MODULES_FILE: file },
      encoding: 'utf8',
      timeout: 30_000,
    });
    if (r.error) throw r.error;
    return readFileSync(file, 'utf8').split('\n').filter(Boolean);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

describe('a client command loads none of the daemon', () => {
  beforeAll(() => buildOnce(), 120_000);

  it.each([['--help'], ['ls', '--json'], ['status'], ['devices']])('burrow %s', (...args) => {
    const loaded = loadedBy(...args);
    expect(loaded.some((url) => url.endsWith('/dist/cli/main.js'))).toBe(true);
    expect(loaded.filter((url) => DAEMON_ONLY.some((re) => re.test(url)))).toEqual([]);
  });

  it('the list sees a module loaded on use: attach loads its terminal model', () => {
    // No daemon runs for this state directory: attach fails after loading what it would draw with.
    const loaded = loadedBy('attach', 'nosuch');
    expect(loaded.some((url) => /node_modules\/@xterm\/headless\//.test(url))).toBe(true);
  });
});
