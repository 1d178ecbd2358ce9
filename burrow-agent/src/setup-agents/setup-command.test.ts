import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliIo, Invocation } from '../cli/commands.js';
import { CliError, ExitCode } from '../cli/exit-codes.js';
import { setupCommand } from './setup-command.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function invocation(values: Invocation['values'], positionals: string[], input: string | null) {
  const configDir = mkdtempSync(join(tmpdir(), 'burrow-setup-cmd-'));
  dirs.push(configDir);
  const stdin = new PassThrough();
  if (input !== null) stdin.end(input);
  else stdin.end();
  let printed = '';
  const stdout = new PassThrough();
  stdout.on('data', (d: Buffer) => {
    printed += d.toString();
  });
  const io = {
    stdin,
    stdout,
    stderr: new PassThrough(),
    env: { CLAUDE_CONFIG_DIR: configDir, HOME: configDir, PATH: join(configDir, 'bin') },
    cwd: configDir,
  } as unknown as CliIo;
  return { inv: { values, positionals, io }, configDir, printed: () => printed };
}

describe('burrow setup', () => {
  it('is shaped like the other CLI commands', () => {
    expect(setupCommand.name).toBe('setup');
    expect(setupCommand.positionals).toEqual([0, 1]);
    expect(setupCommand.options).toHaveProperty('yes');
    expect(setupCommand.usage).toMatch(/^burrow setup \[claude\|codex\|gemini\]/);
  });

  it('asks on stdin and changes the settings when the answer is yes', async () => {
    const t = invocation({ yes: false, json: false }, ['claude'], 'y\n');
    expect(await setupCommand.run(t.inv)).toBe(ExitCode.Ok);
    expect(t.printed()).toContain('(not set) → "iterm2"');
    expect(JSON.parse(readFileSync(join(t.configDir, 'settings.json'), 'utf8'))).toEqual({
      preferredNotifChannel: 'iterm2',
    });
  });

  it('changes nothing when stdin closes without an answer', async () => {
    const t = invocation({ yes: false, json: false }, ['claude'], null);
    expect(await setupCommand.run(t.inv)).toBe(ExitCode.Ok);
    expect(t.printed()).toContain('Nothing changed.');
    expect(() => readFileSync(join(t.configDir, 'settings.json'))).toThrow();
  });

  it('prints the result as JSON with --yes --json, and refuses --json alone or another target', async () => {
    const t = invocation({ yes: true, json: true }, ['claude'], null);
    expect(await setupCommand.run(t.inv)).toBe(ExitCode.Ok);
    expect(JSON.parse(t.printed())).toMatchObject({ status: 'changed', after: '"iterm2"' });
    const usage = async (values: Invocation['values'], target: string) => {
      const error = await setupCommand.run(invocation(values, [target], null).inv).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CliError);
      expect((error as CliError).exitCode).toBe(ExitCode.Usage);
    };
    await usage({ yes: false, json: true }, 'claude');
    await usage({ yes: true, json: false }, 'aider');
    await usage({ yes: true, json: false }, 'opencode');
  });
});

describe('burrow setup (issue 23): codex, gemini, and the list', () => {
  it('sets up codex in $CODEX_HOME and gemini in $GEMINI_CLI_HOME, then lists them as set up', async () => {
    const t = invocation({ yes: true, json: false }, ['codex'], null);
    const codexHome = join(t.configDir, 'codex-home');
    mkdirSync(codexHome);
    writeFileSync(join(codexHome, 'config.toml'), '# mine\nmodel = "o3" # fast\n');
    const env = { ...t.inv.io.env, CODEX_HOME: codexHome, GEMINI_CLI_HOME: join(t.configDir, 'g') };
    const io = { ...t.inv.io, env } as CliIo;
    expect(await setupCommand.run({ ...t.inv, io })).toBe(ExitCode.Ok);
    expect(readFileSync(join(codexHome, 'config.toml'), 'utf8')).toBe(
      '# mine\nmodel = "o3" # fast\n\n[tui]\nnotification_method = "osc9"\n',
    );
    expect(await setupCommand.run({ ...t.inv, positionals: ['gemini'], io })).toBe(ExitCode.Ok);
    expect(JSON.parse(readFileSync(join(t.configDir, 'g', '.gemini', 'settings.json'), 'utf8'))).toEqual({
      general: { enableNotifications: true },
    });
    // A program on PATH is found.
    mkdirSync(join(t.configDir, 'bin'));
    writeFileSync(join(t.configDir, 'bin', 'codex'), '#!/bin/sh\n', { mode: 0o755 });
    const list = invocation({ json: true }, [], null);
    const rows = JSON.parse(
      await (async () => {
        const listIo = { ...list.inv.io, env } as CliIo;
        await setupCommand.run({ ...list.inv, io: listIo });
        return list.printed();
      })(),
    ) as Array<{ agent: string; found: string | null; setUp: boolean | null }>;
    expect(rows.map((r) => [r.agent, r.found !== null, r.setUp])).toEqual([
      ['claude', false, false],
      ['codex', true, true],
      ['gemini', false, true],
      ['opencode', false, null],
    ]);
    const table = invocation({ json: false }, [], null);
    await setupCommand.run({ ...table.inv, io: { ...table.inv.io, env } as CliIo });
    expect(table.printed()).toMatch(
      /^AGENT +ON PATH +SETUP\nclaude +not found +not set up: `burrow setup claude`/,
    );
    expect(table.printed()).toMatch(/\ncodex +found +set up \(\[tui\] notification_method = "osc9"/);
    expect(table.printed()).toMatch(/\nopencode +not found +nothing to set up/);
  });

  it('refuses a codex config it cannot rewrite faithfully, with what to add by hand, changing nothing', async () => {
    const t = invocation({ yes: true, json: false }, ['codex'], null);
    const codexHome = join(t.configDir, 'codex-home');
    mkdirSync(codexHome);
    writeFileSync(join(codexHome, 'config.toml'), 'tui = "not a table"\n');
    const io = { ...t.inv.io, env: { ...t.inv.io.env, CODEX_HOME: codexHome } } as CliIo;
    const error = await setupCommand.run({ ...t.inv, io }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(ExitCode.Failure);
    expect((error as CliError).message).toMatch(/tui is not a table; nothing was changed/);
    expect(readFileSync(join(codexHome, 'config.toml'), 'utf8')).toBe('tui = "not a table"\n');
  });
});
