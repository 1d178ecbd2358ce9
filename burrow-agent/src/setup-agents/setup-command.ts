/**
 * `burrow setup [AGENT]` (issue 23): alone, lists the coding agents Burrow knows, whether each is on PATH and
 * whether it is set up; with an agent, makes that agent notify with its own words (agent-setup.ts), asking
 * first unless `--yes`.
 */
import { homedir } from 'node:os';
import { createInterface } from 'node:readline/promises';
import type { Command } from '../cli/commands.js';
import { CliError, ExitCode } from '../cli/exit-codes.js';
import { printable, printableJson } from '../text/printable.js';
import { runAgentSetup } from './agent-setup.js';
import { AGENT_SETUPS, agentStatus, KNOWN_AGENTS, setupFor } from './agents.js';
import { SetupError } from './config-file.js';

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

const TARGETS = AGENT_SETUPS.map((s) => s.agent).join('|');

export const setupCommand: Command = {
  name: 'setup',
  summary: 'make a coding agent notify with its own words (claude, codex, gemini); alone: list them',
  usage: `burrow setup [${TARGETS}] [--yes] [--json]`,
  details:
    'Alone: lists the agents Burrow knows, whether each is on PATH and whether it is set up.\n' +
    "claude: Claude Code's preferredNotifChannel = iterm2 (OSC 9) in $CLAUDE_CONFIG_DIR/settings.json or\n" +
    '  ~/.claude/settings.json; a file that is not plain JSON is refused.\n' +
    'codex: [tui] notification_method = "osc9" in $CODEX_HOME/config.toml or ~/.codex/config.toml; comments\n' +
    '  and layout are kept, and a file that cannot be rewritten faithfully is refused.\n' +
    'gemini: general.enableNotifications = true in $GEMINI_CLI_HOME/.gemini/settings.json or\n' +
    '  ~/.gemini/settings.json; comments are kept.\n' +
    'opencode needs nothing: Burrow answers its notification query. Each change is shown and asked first\n' +
    '(--yes skips the question), a backup is written, and every other setting is kept.',
  options: {
    yes: { type: 'boolean', short: 'y', default: false },
    json: { type: 'boolean', default: false },
  },
  positionals: [0, 1],
  async run(inv) {
    const home = inv.io.env.HOME ?? homedir();
    const json = inv.values.json === true;
    const target = inv.positionals[0];
    if (target === undefined) {
      const rows = KNOWN_AGENTS.map((a) => agentStatus(a, inv.io.env, home));
      if (json) {
        inv.io.stdout.write(`${printableJson(rows)}\n`);
        return ExitCode.Ok;
      }
      const lines = rows.map(
        (r) =>
          `${r.agent.padEnd(9)}${(r.found === null ? 'not found' : 'found').padEnd(11)}${printable(r.detail, 400)}`,
      );
      inv.io.stdout.write(`${['AGENT    ON PATH    SETUP', ...lines].join('\n')}\n`);
      return ExitCode.Ok;
    }
    const spec = setupFor(target);
    if (spec === null) {
      const hint =
        target === 'opencode' ? ' (opencode needs none: Burrow answers its notification query)' : '';
      throw new CliError(
        ExitCode.Usage,
        `unknown setup target ${JSON.stringify(printable(target, 40))}${hint}; try: burrow setup ${TARGETS}`,
      );
    }
    const yes = inv.values.yes === true;
    if (json && !yes) throw new CliError(ExitCode.Usage, '--json cannot ask a question; add --yes');
    const sink = json ? { write: () => true } : inv.io.stdout;
    try {
      const result = await runAgentSetup(spec, {
        env: inv.io.env,
        homedir: home,
        yes,
        stdout: sink,
        prompt: askOn(inv.io),
      });
      if (json) inv.io.stdout.write(`${JSON.stringify(result)}\n`);
      return ExitCode.Ok;
    } catch (err) {
      if (err instanceof SetupError) throw new CliError(ExitCode.Failure, err.message);
      throw err;
    }
  },
};
