import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
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
    env: { CLAUDE_CONFIG_DIR: configDir, HOME: configDir },
    cwd: configDir,
  } as unknown as CliIo;
  return { inv: { values, positionals, io }, configDir, printed: () => printed };
}

describe('burrow setup', () => {
  it('is shaped like the other CLI commands', () => {
    expect(setupCommand.name).toBe('setup');
    expect(setupCommand.positionals).toEqual([1, 1]);
    expect(setupCommand.options).toHaveProperty('yes');
    expect(setupCommand.usage).toMatch(/^burrow setup claude/);
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
    await usage({ yes: true, json: false }, 'codex');
  });
});
