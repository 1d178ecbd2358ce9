/**
 * `burrow setup claude` (DESIGN §6): makes Claude Code notify in any terminal by setting its
 * `preferredNotifChannel` to `iterm2`, the way the winmux ADR does it: say exactly what will change and
 * where, ask (unless `--yes`), back the file up, then rewrite it atomically with every other key kept. Running
 * it again when the value is already set changes nothing. The flow is the one every agent's setup shares
 * (../setup-agents/agent-setup.ts); Claude's file and value are CLAUDE_SETUP.
 */
import { type AgentSetupOptions, type AgentSetupResult, runAgentSetup } from '../setup-agents/agent-setup.js';
import { CLAUDE_SETUP } from '../setup-agents/agents.js';

export type SetupClaudeOptions = AgentSetupOptions;
export type SetupClaudeResult = AgentSetupResult;

/**
 * @throws SetupClaudeError when the settings cannot be read, are not plain JSON, or cannot be written; in
 *   each case the file is as it was.
 */
export function runSetupClaude(options: SetupClaudeOptions): Promise<SetupClaudeResult> {
  return runAgentSetup(CLAUDE_SETUP, options);
}
