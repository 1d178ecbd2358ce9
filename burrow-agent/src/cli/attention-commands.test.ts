import { describe, expect, it } from 'vitest';
import { awaitExitCode, awaitText } from './attention-commands.js';
import { ExitCode } from './exit-codes.js';
import { mainHelp } from './main.js';

const answer = (cause: string, exitCode: number | null = null, command: string | null = null) =>
  ({ session: 's', cause, exitCode, command }) as Parameters<typeof awaitExitCode>[0];

describe('burrow await results (issue 13)', () => {
  it('exits 0 when the awaited thing happened, 7 when the command failed, 1 when nothing happened', () => {
    for (const until of ['quiet', 'exit'] as const) {
      expect(awaitExitCode(answer('exit', 0, 'make'), until)).toBe(ExitCode.Ok);
      expect(awaitExitCode(answer('exit', 2, 'make'), until)).toBe(ExitCode.CommandFailed);
      expect(awaitExitCode(answer('exit', null, 'make'), until)).toBe(ExitCode.CommandFailed);
      expect(awaitExitCode(answer('timeout'), until)).toBe(ExitCode.Failure);
      expect(awaitExitCode(answer('cancelled'), until)).toBe(ExitCode.Failure);
    }
    for (const cause of ['quiet', 'bell', 'idle']) expect(awaitExitCode(answer(cause), 'quiet')).toBe(0);
    // The session's process ending is the exit under --until exit (by its status), a failure under quiet.
    expect(awaitExitCode(answer('died', 0), 'exit')).toBe(ExitCode.Ok);
    expect(awaitExitCode(answer('died', 129), 'exit')).toBe(ExitCode.CommandFailed);
    expect(awaitExitCode(answer('died', 0), 'quiet')).toBe(ExitCode.Failure);
    expect(ExitCode.CommandFailed).toBe(7);
    expect(mainHelp()).toContain('7  burrow await: the awaited command exited non-zero (or was killed)');
  });

  it('says the exit code and command in one plain line', () => {
    expect(awaitText(answer('quiet'))).toBe('quiet');
    expect(awaitText(answer('exit', 3, "sh -c 'exit 3'"))).toBe("exit (code 3): sh -c 'exit 3'");
    expect(awaitText(answer('died', null))).toBe('died (code unknown)');
    expect(awaitText(answer('exit', 0, `cd /tmp\nmake\u001b[31m ${'x'.repeat(200)}`))).toMatch(
      /^exit \(code 0\): cd \/tmp make \[31m x+…$/,
    );
    expect(Array.from(awaitText(answer('exit', 0, 'y'.repeat(500)))).length).toBeLessThan(100);
  });
});
