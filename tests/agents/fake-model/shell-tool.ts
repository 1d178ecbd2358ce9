/**
 * Finds the agent's shell tool among the tools a request offers and builds the arguments that run one command
 * line with it, from the tool's own JSON schema — so a renamed or reshaped tool in a new agent version fails
 * with a message naming what was offered instead of a silent "unknown tool" inside the agent.
 */
import type { ToolSpec } from './conversation.js';

/**
 * Shell tool names, most specific first, as each pinned agent names it (see tests/agents/README.md):
 * Claude Code `Bash`; Codex `shell_command` / `exec_command` / `shell` (which one depends on the model family it
 * believes it talks to); Gemini CLI `run_shell_command`; opencode `bash`.
 */
export const SHELL_TOOL_NAMES = [
  'Bash',
  'shell_command',
  'exec_command',
  'shell',
  'run_shell_command',
  'bash',
];

interface JsonSchemaObject {
  readonly properties?: Record<string, { readonly type?: string | readonly string[] }>;
  readonly required?: readonly string[];
}

export function findShellTool(tools: readonly ToolSpec[]): ToolSpec | undefined {
  for (const name of SHELL_TOOL_NAMES) {
    const tool = tools.find((t) => t.name === name);
    if (tool !== undefined) return tool;
  }
  return undefined;
}

/** Arguments for `tool` that run `command` (a shell command line), filled from its schema. */
export function shellArgs(tool: ToolSpec, command: string): Record<string, unknown> {
  const schema = (tool.schema ?? {}) as JsonSchemaObject;
  const props = schema.properties ?? {};
  const args: Record<string, unknown> = {};
  const commandKey = ['command', 'cmd'].find((k) => k in props);
  if (commandKey === undefined) {
    throw new Error(`shell tool ${tool.name} has no command/cmd parameter: ${JSON.stringify(tool.schema)}`);
  }
  const type = props[commandKey]?.type;
  // Codex's classic `shell` tool takes argv; the others a command line.
  args[commandKey] = type === 'array' ? ['bash', '-lc', command] : command;
  // Claude Code, Gemini CLI and opencode ask the model to describe what the command does; they show it in
  // the permission prompt, so the description is part of what a ring's detail may show.
  if ('description' in props) args.description = `Create the file the test waits for: ${command}`;
  // Codex's exec_command runs commands in its sandbox without asking under its default on-request policy; a
  // model that wants a command run as-is asks for escalation, and Codex puts the justification to the user.
  if ('sandbox_permissions' in props) {
    args.sandbox_permissions = 'require_escalated';
    if ('justification' in props) args.justification = `Run \`${command}\` to create the file you asked for?`;
  }
  for (const key of schema.required ?? []) {
    if (!(key in args))
      throw new Error(`shell tool ${tool.name} requires "${key}", which the fake model cannot fill`);
  }
  return args;
}
