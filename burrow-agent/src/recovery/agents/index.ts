/**
 * The recoverable agents by name, and how a process is recognised as one: by its program name — an
 * executable's base name, or the script an interpreter runs (npm installs Codex and Gemini CLI as
 * `#!/usr/bin/env node` launchers, so their processes are `node …/bin/codex`). The names are the watch keys
 * the WATCHING rules use for the same agents (attention/watch-rules.ts DEFAULT_WATCHED_COMMANDS).
 */
import { basename } from 'node:path';
import type { RecoverableAgent } from '../recovery-record.js';
import type { AgentSpec } from './agent-spec.js';
import { claude } from './claude.js';
import { codex } from './codex.js';
import { gemini } from './gemini.js';
import { opencodeSpec } from './opencode.js';

export type { AgentProcess, AgentSpec, CaptureContext, Captured } from './agent-spec.js';

/** A fresh table (opencode's log reader keeps state between captures: one per daemon). */
export function agentSpecs(): Readonly<Record<RecoverableAgent, AgentSpec>> {
  return { claude, codex, gemini, opencode: opencodeSpec() };
}

/** Interpreters whose first script argument is the program (`node /usr/lib/node_modules/.bin/codex`). */
const INTERPRETERS = new Set(['node', 'nodejs', 'bun', 'deno']);
/** Interpreter options that take a value in the next word (so the value is not taken for the script). */
const INTERPRETER_VALUE_OPTIONS = new Set([
  '-r',
  '--require',
  '--import',
  '--loader',
  '--experimental-loader',
  '--conditions',
  '-C',
]);

/** The program a process runs, and where its own arguments start: argv[0], or an interpreter's script. */
export function programOf(argv: readonly string[]): { program: string; index: number } | null {
  const first = argv[0];
  if (first === undefined || first === '') return null;
  if (!INTERPRETERS.has(basename(first))) return { program: first, index: 0 };
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') return argv[i + 1] === undefined ? null : { program: argv[i + 1]!, index: i + 1 };
    if (!a.startsWith('-')) return { program: a, index: i };
    if (INTERPRETER_VALUE_OPTIONS.has(a)) i++;
  }
  return null;
}

/** The key a program name is known by: its base name without a script or Windows-style suffix. */
export function programKey(program: string): string {
  return basename(program).replace(/\.(?:exe|js|mjs|cjs)$/, '');
}

/** The recoverable agent a process's argv runs, or null. */
export function agentOf(
  argv: readonly string[],
  specs: Readonly<Record<RecoverableAgent, AgentSpec>>,
): { spec: AgentSpec; program: string; args: readonly string[] } | null {
  const p = programOf(argv);
  if (p === null) return null;
  const key = programKey(p.program);
  for (const spec of Object.values(specs)) {
    if (spec.programNames.includes(key)) return { spec, program: p.program, args: argv.slice(p.index + 1) };
  }
  return null;
}
