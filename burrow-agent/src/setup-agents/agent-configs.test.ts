/**
 * Issue 23: `burrow setup codex` / `gemini` rewrite files the owner wrote. Comments and layout survive, the
 * result holds exactly the old settings plus the one value, the paths follow CODEX_HOME / GEMINI_CLI_HOME, and
 * a file Burrow cannot rewrite faithfully is refused with what to add by hand.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseToml } from '@decimalturn/toml-patch';
import fc from 'fast-check';
import { parse as parseJsonc } from 'jsonc-parser';
import { afterEach, describe, expect, it } from 'vitest';
import { runAgentSetup } from './agent-setup.js';
import { CODEX_SETUP, GEMINI_SETUP, setupHint } from './agents.js';
import { codexConfigPath, withCodexNotifications } from './codex-config.js';
import { SetupError } from './config-file.js';
import { geminiSettingsPath, withGeminiNotifications } from './gemini-settings.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function home(): string {
  const d = mkdtempSync(join(tmpdir(), 'burrow-setup-agents-'));
  dirs.push(d);
  return d;
}

describe('codex config.toml', () => {
  it('lives in $CODEX_HOME, else ~/.codex', () => {
    expect(codexConfigPath({ CODEX_HOME: '/c' }, '/h')).toBe('/c/config.toml');
    expect(codexConfigPath({}, '/h')).toBe('/h/.codex/config.toml');
    expect(() => codexConfigPath({}, '')).toThrow(SetupError);
  });

  it.each([
    ['', '[tui]\nnotification_method = "osc9"\n'],
    [
      '# my config\nmodel = "gpt-5" # the model\n\n[tui]\n# bell me\nnotifications = true\n',
      '# my config\nmodel = "gpt-5" # the model\n\n[tui]\n# bell me\nnotifications = true\nnotification_method = "osc9"\n',
    ],
    [
      '[tui]\nnotification_method = "bel" # was bell\n\n[other]\nx = 1\n',
      '[tui]\nnotification_method = "osc9" # was bell\n\n[other]\nx = 1\n',
    ],
    [
      'tui.notifications = true # dotted\n',
      'tui.notifications = true # dotted\ntui.notification_method = "osc9"\n',
    ],
    ['tui = { notifications = true }\n', 'tui = { notifications = true, notification_method = "osc9" }\n'],
  ])('keeps comments and layout: %j', (before, after) => {
    expect(withCodexNotifications('/x', before)).toBe(after);
  });

  it('keeps every setting and comment of any config it writes (property)', () => {
    const key = fc.stringMatching(/^[a-z][a-z_]{0,8}$/).filter((k) => k !== 'tui');
    const value = fc.oneof(
      fc.integer(),
      fc.boolean(),
      fc.stringMatching(/^[a-z ]{0,12}$/).map((s) => JSON.stringify(s)),
    );
    const line = fc
      .tuple(key, value, fc.option(fc.stringMatching(/^[a-z ]{1,10}$/)))
      .map(([k, v, c]) => `${k} = ${typeof v === 'string' ? v : String(v)}${c === null ? '' : ` # ${c}`}`);
    fc.assert(
      fc.property(
        fc.uniqueArray(line, { selector: (l) => l.split(' ')[0], maxLength: 6 }),
        fc.boolean(),
        (lines, table) => {
          const before = `${lines.join('\n')}\n${table ? '[tui]\nnotifications = false\n' : ''}`;
          let after: string;
          try {
            after = withCodexNotifications('/x', before);
          } catch (err) {
            expect(err).toBeInstanceOf(SetupError); // refused, never rewritten unfaithfully
            return;
          }
          const old = parseToml(before) as Record<string, unknown>;
          const next = parseToml(after) as Record<string, Record<string, unknown>>;
          expect(next.tui!.notification_method).toBe('osc9');
          for (const [k, v] of Object.entries(old)) if (k !== 'tui') expect(next[k]).toEqual(v);
          for (const l of before.split('\n')) expect(after.split('\n')).toContain(l);
        },
      ),
      { seed: 23, numRuns: 100 },
    );
  });

  it('refuses invalid TOML and a tui that is not a table', () => {
    expect(() => withCodexNotifications('/x', 'model = \n')).toThrow(/not valid TOML.*nothing was changed/);
    expect(() => withCodexNotifications('/x', 'tui = 3\n')).toThrow(/tui is not a table/);
  });

  it('says when tui.notifications = false still silences Codex, and leaves that choice alone', async () => {
    const h = home();
    mkdirSync(join(h, '.codex'));
    const path = join(h, '.codex', 'config.toml');
    writeFileSync(path, '[tui]\nnotifications = false\nnotification_method = "osc9"\n');
    const out: string[] = [];
    const r = await runAgentSetup(CODEX_SETUP, {
      env: {},
      homedir: h,
      yes: true,
      stdout: { write: (t: string) => out.push(t) },
      prompt: async () => 'y',
    });
    expect(r.status).toBe('changed'); // method already osc9, but not set up while notifications are off…
    expect(out.join('')).toMatch(/notifications = false.*until it is true/);
    expect(readFileSync(path, 'utf8')).toContain('notifications = false'); // …and never turned on by Burrow
  });

  it('backs up, then writes atomically; a second run changes nothing', async () => {
    const h = home();
    const opts = { env: { CODEX_HOME: join(h, 'ch') }, homedir: h, yes: true, prompt: async () => 'y' };
    mkdirSync(join(h, 'ch'));
    writeFileSync(join(h, 'ch', 'config.toml'), 'model = "o3"\n', { mode: 0o640 });
    const first = await runAgentSetup(CODEX_SETUP, { ...opts, stdout: { write: () => true }, now: () => 0 });
    expect(first).toMatchObject({ status: 'changed', before: null, after: '"osc9"' });
    expect(readdirSync(join(h, 'ch')).sort()).toEqual([
      'config.toml',
      'config.toml.burrow-backup-19700101T000000Z',
    ]);
    const second = await runAgentSetup(CODEX_SETUP, { ...opts, stdout: { write: () => true } });
    expect(second.status).toBe('unchanged');
  });
});

describe('gemini settings.json', () => {
  it('lives in $GEMINI_CLI_HOME/.gemini, else ~/.gemini', () => {
    expect(geminiSettingsPath({ GEMINI_CLI_HOME: '/g' }, '/h')).toBe('/g/.gemini/settings.json');
    expect(geminiSettingsPath({}, '/h')).toBe('/h/.gemini/settings.json');
  });

  it('keeps comments and layout, nesting under general', () => {
    const before =
      '{\n  // my theme\n  "ui": { "theme": "Dracula" },\n  /* general */\n  "general": {\n    "vimMode": true\n  }\n}\n';
    const after = withGeminiNotifications('/x', before);
    expect(after).toContain('// my theme');
    expect(after).toContain('/* general */');
    expect(after).toContain('"vimMode": true,');
    expect(parseJsonc(after)).toEqual({
      ui: { theme: 'Dracula' },
      general: { vimMode: true, enableNotifications: true },
    });
    expect(JSON.parse(withGeminiNotifications('/x', null))).toEqual({
      general: { enableNotifications: true },
    });
    const tabs = withGeminiNotifications('/x', '{\n\t"a": 1\n}\n');
    expect(tabs).toBe('{\n\t"a": 1,\n\t"general": {\n\t\t"enableNotifications": true\n\t}\n}\n');
  });

  it('refuses syntax errors and a general that is not an object, changing nothing', async () => {
    expect(() => withGeminiNotifications('/x', '{ "a": 1,, }')).toThrow(
      /not valid JSON.*nothing was changed/,
    );
    expect(() => withGeminiNotifications('/x', '{ "general": 3 }')).toThrow(/"general" is not an object/);
    expect(() => withGeminiNotifications('/x', '[]')).toThrow(/does not hold a JSON object/);
  });

  it('runs the shared flow with its note about system and project settings', async () => {
    const h = home();
    const out: string[] = [];
    const r = await runAgentSetup(GEMINI_SETUP, {
      env: {},
      homedir: h,
      yes: false,
      stdout: { write: (t: string) => out.push(t) },
      prompt: async () => 'n',
    });
    expect(r.status).toBe('declined');
    expect(out.join('')).toMatch(/general\.enableNotifications: \(not set\) → true/);
    expect(out.join('')).toMatch(/GEMINI_CLI_SYSTEM_SETTINGS_PATH/);
  });
});

describe('the hint `burrow new -- AGENT` prints (issue 23)', () => {
  it('names the agent and the command for one not set up, and nothing otherwise', () => {
    const h = home();
    expect(setupHint('codex', {}, h)).toMatch(/^hint: Codex CLI is not set up.*`burrow setup codex`/);
    mkdirSync(join(h, '.gemini'));
    writeFileSync(join(h, '.gemini', 'settings.json'), '{ "general": { "enableNotifications": true } }');
    expect(setupHint('gemini', {}, h)).toBeNull();
    expect(setupHint('opencode', {}, h)).toBeNull();
    expect(setupHint('vim', {}, h)).toBeNull();
    expect(setupHint(null, {}, h)).toBeNull();
  });
});
