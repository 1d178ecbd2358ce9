/**
 * The `burrow setup claude` entry for the CLI's command table (src/cli/commands.ts `Command`). Only the one
 * target exists today; the positional keeps room for others.
 */
import { homedir } from 'node:os';
import { createInterface } from 'node:readline/promises';
import type { Command } from '../cli/commands.js';
import { CliError, ExitCode } from '../cli/exit-codes.js';
import { runSetupClaude } from './setup-claude.js';
import { SetupClaudeError } from './setup-claude-error.js';

/** Asks on the CLI's terminal; null when stdin closes without an answer. */
function askOn(io: { stdin: NodeJS.ReadStream; stdout: NodeJS.WriteStream }) {
  return async (question: string): Promise<string | null> => {
    const rl = createInterface({ input: io.stdin, output: io.stdout, terminal: io.stdin.isTTY === true });
    const closed = new Promise<null>((resolve) => rl.once('close', () => resolve(null)));
    try {
      return await Promise.race([rl.question(question), closed]);
    } finally {
      rl.close();
    }
  };
}

export const setupCommand: Command = {
  name: 'setup',
  summary: 'set up another program to work with Burrow (today: claude)',
  usage: 'burrow setup claude [--yes] [--json]',
  details:
    "claude: sets Claude Code's preferredNotifChannel to iterm2 (OSC 9) in $CLAUDE_CONFIG_DIR/settings.json or\n" +
    '~/.claude/settings.json, so it notifies in any terminal. Shows the change and asks first (--yes skips\n' +
    'the question), writes a backup, keeps every other setting, and refuses a file that is not plain JSON.',
  options: {
    yes: { type: 'boolean', short: 'y', default: false },
    json: { type: 'boolean', default: false },
  },
  positionals: [1, 1],
  async run(inv) {
    const target = inv.positionals[0];
    if (target !== 'claude')
      throw new CliError(
        ExitCode.Usage,
        `unknown setup target ${JSON.stringify(target)}; try: burrow setup claude`,
      );
    const json = inv.values.json === true;
    const yes = inv.values.yes === true;
    if (json && !yes) throw new CliError(ExitCode.Usage, '--json cannot ask a question; add --yes');
    const sink = json ? { write: () => true } : inv.io.stdout;
    try {
      const result = await runSetupClaude({
        env: inv.io.env,
        homedir: inv.io.env.HOME ?? homedir(),
        yes,
        stdout: sink,
        prompt: askOn(inv.io),
      });
      if (json) inv.io.stdout.write(`${JSON.stringify(result)}\n`);
      return ExitCode.Ok;
    } catch (err) {
      if (err instanceof SetupClaudeError) throw new CliError(ExitCode.Failure, err.message);
      throw err;
    }
  },
};
