/**
 * A stand-in for Claude Code in tests that need an agent process but not a model: an executable named `claude`
 * (a node script that prints its arguments and waits), and the two files Claude Code 2.1.197 keeps for a
 * running conversation (src/recovery/agents/claude.ts), written the way it writes them.
 */
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseStat } from '../src/recovery/proc.js';

/** A directory with `bin/claude` (a node script that waits) and a Claude config dir. */
export function fakeClaudeHome(cleanups: (() => void)[]) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'burrow-capture-')));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const bin = join(root, 'bin');
  mkdirSync(bin);
  const claude = join(bin, 'claude');
  writeFileSync(
    claude,
    '#!/usr/bin/env node\nconsole.log(["claude", ...process.argv.slice(2)].join(" "));\nsetInterval(() => {}, 1000);\n',
  );
  chmodSync(claude, 0o755);
  const work = join(root, 'work');
  mkdirSync(work);
  const config = join(root, 'claude-config');
  mkdirSync(join(config, 'sessions'), { recursive: true });
  return { root, bin, claude, work, config };
}

/** Writes what Claude Code writes for process `pid` in conversation `id` (sessions/<pid>.json and a transcript). */
export function writeClaudeStore(config: string, pid: number, cwd: string, id: string): string {
  const stat = parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8'))!;
  writeFileSync(
    join(config, 'sessions', `${pid}.json`),
    JSON.stringify({
      pid,
      sessionId: id,
      cwd,
      procStart: String(stat.startTicks),
      kind: 'interactive',
      version: '2.1.197',
    }),
  );
  const dir = join(config, 'projects', cwd.replace(/[^A-Za-z0-9]/g, '-'));
  mkdirSync(dir, { recursive: true });
  const transcript = join(dir, `${id}.jsonl`);
  writeFileSync(
    transcript,
    `${JSON.stringify({ type: 'user', message: { role: 'user', content: 'hi' }, sessionId: id })}\n`,
  );
  return transcript;
}

/** Whether `pid` is the stand-in itself by now (node running bin/claude), past the `env` exec's of its start. */
export function isFakeClaude(pid: number): boolean {
  try {
    const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return /(^|\/)node$/.test(argv[0] ?? '') && (argv[1] ?? '').endsWith('/bin/claude');
  } catch {
    return false;
  }
}
