import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CliIo } from './commands.js';
import { COMMANDS } from './commands.js';
import { CliError, ExitCode } from './exit-codes.js';
import { main, parseCommandArgs } from './main.js';

function io() {
  const out = { stdout: '', stderr: '' };
  const sink = (k: 'stdout' | 'stderr') => ({
    write: (s: string) => {
      out[k] += s;
      return true;
    },
  });
  const value = {
    stdin: process.stdin,
    stdout: sink('stdout'),
    stderr: sink('stderr'),
    env: { BURROW_STATE_DIR: join(mkdtempSync(join(tmpdir(), 'burrow-cli-main-')), 'state') },
    cwd: '/',
  } as unknown as CliIo;
  return { io: value, out };
}

describe('burrow argument parsing', () => {
  it('a device id that begins with "-", typed as `burrow devices` printed it, is the id, not an option', async () => {
    const { io: cliIo, out } = io();
    // No daemon runs for this state dir: reaching "not running" (3) means the id parsed as a positional.
    const code = await main(['devices', 'revoke', '--4CRnXnaG1BED1I'], cliIo);
    expect(out.stderr).not.toMatch(/Unknown option/);
    expect(code).toBe(ExitCode.DaemonNotRunning);
  });

  it('a real unknown option is still refused with the usage', async () => {
    const { io: cliIo, out } = io();
    expect(await main(['devices', '--jsn'], cliIo)).toBe(ExitCode.Usage);
    expect(out.stderr).toBe(
      'burrow devices: unknown option --jsn; see `burrow devices --help`\n' +
        'Usage: burrow devices [--json] | burrow devices revoke DEVICE\n',
    );
  });
});

describe("parseCommandArgs: mistakes in Burrow's words, negative numbers as values", () => {
  const command = COMMANDS.find((c) => c.name === 'await')!;
  const usage = (args: string[]) => {
    try {
      parseCommandArgs(command, args);
    } catch (err) {
      expect(err).toBeInstanceOf(CliError);
      expect((err as CliError).exitCode).toBe(ExitCode.Usage);
      return (err as Error).message;
    }
    return null;
  };

  it('negative numbers are values of options and positionals', () => {
    expect(parseCommandArgs(command, ['s', '--until', 'quiet', '--timeout', '-5']).values.timeout).toBe('-5');
    const settings = COMMANDS.find((c) => c.name === 'settings')!;
    expect(parseCommandArgs(settings, ['set', 'pushDelayMs', '-1.5']).positionals).toEqual([
      'set',
      'pushDelayMs',
      '-1.5',
    ]);
  });

  it('says which option is unknown, lacks its value, or takes none', () => {
    expect(usage(['s', '--untill', 'quiet'])).toBe('unknown option --untill; see `burrow await --help`');
    expect(usage(['s', '-x'])).toBe('unknown option -x; see `burrow await --help`');
    expect(usage(['s', '--until'])).toBe('--until needs a value; see `burrow await --help`');
    expect(usage(['s', '--until', '--json'])).toBe('--until needs a value; see `burrow await --help`');
    expect(usage(['s', '--json=yes'])).toBe('--json takes no value');
    expect(usage(['s', '--until=--json'])).toBeNull();
  });

  it('an option name from the command line is shown, never interpreted', () => {
    expect(usage(['s', '--\x1b]52;c;aGk=\x07'])).toBe(
      'unknown option --\\x1b]52;c;aGk; see `burrow await --help`',
    );
  });
});
