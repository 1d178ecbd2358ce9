import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { parsePlainSettings } from './claude-settings.js';
import { backupStamp } from './settings-writer.js';
import { runSetupClaude, type SetupClaudeOptions } from './setup-claude.js';
import { SetupClaudeError } from './setup-claude-error.js';

const NOW = Date.UTC(2026, 11, 1, 20, 30, 5, 123);
const dirs: string[] = [];

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function home(): string {
  const d = mkdtempSync(join(tmpdir(), 'burrow-setup-claude-'));
  dirs.push(d);
  return d;
}

function options(homedir: string, over: Partial<SetupClaudeOptions> = {}) {
  const out: string[] = [];
  const asked: string[] = [];
  const opts: SetupClaudeOptions = {
    env: {},
    homedir,
    yes: false,
    stdout: { write: (t: string) => out.push(t) },
    prompt: async (q) => {
      asked.push(q);
      return 'y';
    },
    now: () => NOW,
    ...over,
  };
  return { opts, out: () => out.join(''), asked };
}

function settingsAt(homedir: string, text: string): string {
  mkdirSync(join(homedir, '.claude'), { recursive: true });
  const path = join(homedir, '.claude', 'settings.json');
  writeFileSync(path, text);
  return path;
}

describe('runSetupClaude', () => {
  it('shows the change, asks, backs up, and keeps every other key in order', async () => {
    const h = home();
    const original = '{"model":"opus","preferredNotifChannel":"terminal_bell","hooks":{"Stop":[]}}';
    const path = settingsAt(h, original);
    chmodSync(path, 0o644);
    const { opts, out, asked } = options(h);
    const result = await runSetupClaude(opts);

    expect(out()).toContain(`Claude Code settings: ${path}`);
    expect(out()).toContain('preferredNotifChannel: "terminal_bell" → "iterm2"');
    expect(asked).toEqual(['Change it? [y/N] ']);
    const backup = `${path}.burrow-backup-20261201T203005Z`;
    expect(result).toEqual({ status: 'changed', path, backup, before: '"terminal_bell"', after: '"iterm2"' });
    expect(readFileSync(backup, 'utf8')).toBe(original);
    const written = readFileSync(path, 'utf8');
    expect(written).toBe(
      `${JSON.stringify({ model: 'opus', preferredNotifChannel: 'iterm2', hooks: { Stop: [] } }, null, 2)}\n`,
    );
    expect(statSync(path).mode & 0o777).toBe(0o644);
    expect(readdirSync(join(h, '.claude')).filter((f) => f.includes('burrow-tmp'))).toEqual([]);
  });

  it('is a no-op once set, and a second run keeps the first backup', async () => {
    const h = home();
    const path = settingsAt(h, '{"theme":"dark"}');
    await runSetupClaude(options(h, { yes: true }).opts);
    const afterFirst = readFileSync(path, 'utf8');
    const second = options(h);
    expect(await runSetupClaude(second.opts)).toEqual({ status: 'unchanged', path });
    expect(second.asked).toEqual([]);
    expect(second.out()).toContain('already');
    expect(readFileSync(path, 'utf8')).toBe(afterFirst);
    expect(readdirSync(join(h, '.claude')).filter((f) => f.includes('backup'))).toHaveLength(1);
  });

  it('never overwrites an older backup with the same timestamp', async () => {
    const h = home();
    const path = settingsAt(h, '{"a":1}');
    writeFileSync(`${path}.burrow-backup-20261201T203005Z`, 'older');
    const result = await runSetupClaude(options(h, { yes: true }).opts);
    expect(result).toMatchObject({ backup: `${path}.burrow-backup-20261201T203005Z-2` });
    expect(readFileSync(`${path}.burrow-backup-20261201T203005Z`, 'utf8')).toBe('older');
  });

  it('writes nothing when the user says no, or there is no one to ask', async () => {
    for (const answer of ['n', '', 'maybe', null]) {
      const h = home();
      const path = settingsAt(h, '{"a":1}');
      const { opts, out } = options(h, { prompt: async () => answer });
      expect(await runSetupClaude(opts)).toEqual({ status: 'declined', path });
      expect(out()).toContain('Nothing changed.');
      expect(readFileSync(path, 'utf8')).toBe('{"a":1}');
      expect(readdirSync(join(h, '.claude'))).toEqual(['settings.json']);
    }
  });

  it('refuses comments and trailing commas with a message saying what to do, writing nothing', async () => {
    for (const text of ['{\n  // mine\n  "a": 1\n}', '{"a": 1,}', '{"a": [1, 2,]}', '[1]', '"x"']) {
      const h = home();
      const path = settingsAt(h, text);
      const { opts, asked } = options(h, { yes: true });
      const failure = runSetupClaude(opts);
      await expect(failure).rejects.toThrow(SetupClaudeError);
      await expect(failure).rejects.toThrow(path);
      expect(asked).toEqual([]);
      expect(readFileSync(path, 'utf8')).toBe(text);
      expect(readdirSync(join(h, '.claude'))).toEqual(['settings.json']);
    }
    const h = home();
    settingsAt(h, '{"a": 1,}');
    await expect(runSetupClaude(options(h, { yes: true }).opts)).rejects.toThrow(/not plain JSON.*comments/i);
  });

  it('uses CLAUDE_CONFIG_DIR, creating the file there when there is none', async () => {
    const h = home();
    const configDir = join(h, 'custom-claude');
    const { opts, out } = options(h, { env: { CLAUDE_CONFIG_DIR: configDir }, yes: true });
    const result = await runSetupClaude(opts);
    const path = join(configDir, 'settings.json');
    expect(result).toEqual({ status: 'changed', path, backup: null, before: null, after: '"iterm2"' });
    expect(out()).toContain('(not set) → "iterm2"');
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ preferredNotifChannel: 'iterm2' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readdirSync(h)).toEqual(['custom-claude']);
  });

  it('keeps a symlinked settings.json a symlink, changing the file it points to', async () => {
    const h = home();
    mkdirSync(join(h, 'dotfiles'));
    mkdirSync(join(h, '.claude'));
    const real = join(h, 'dotfiles', 'claude-settings.json');
    writeFileSync(real, '{"a":1}');
    const link = join(h, '.claude', 'settings.json');
    symlinkSync(real, link);
    const result = await runSetupClaude(options(h, { yes: true }).opts);
    expect(result).toMatchObject({ status: 'changed', path: link });
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(JSON.parse(readFileSync(real, 'utf8'))).toEqual({ a: 1, preferredNotifChannel: 'iterm2' });
    expect(readdirSync(join(h, 'dotfiles'))).toEqual(['claude-settings.json']);
  });

  it('refuses when the file changed while the question was open', async () => {
    const h = home();
    const path = settingsAt(h, '{"a":1}');
    const { opts } = options(h, {
      prompt: async () => {
        writeFileSync(path, '{"a":2}');
        return 'yes';
      },
    });
    await expect(runSetupClaude(opts)).rejects.toThrow(/changed while/);
    expect(readFileSync(path, 'utf8')).toBe('{"a":2}');
  });
});

describe('parsePlainSettings', () => {
  it('accepts blank text as no settings, and throws only SetupClaudeError on any other text (property)', () => {
    expect(parsePlainSettings('/x', ' \n')).toEqual({});
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.json().map((j) => `${j},`),
          fc.json(),
        ),
        (text) => {
          try {
            const value = parsePlainSettings('/x', text);
            expect(typeof value).toBe('object');
          } catch (err) {
            expect(err).toBeInstanceOf(SetupClaudeError);
          }
        },
      ),
      { seed: 0xc1a0de, numRuns: 500 },
    );
  });

  it('stamps backups in sortable UTC', () => {
    expect(backupStamp(NOW)).toBe('20261201T203005Z');
  });
});
