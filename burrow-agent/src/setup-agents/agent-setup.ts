/**
 * One flow for every `burrow setup AGENT` (DESIGN §6; the winmux ADR's "change the agent's settings safely"):
 * say exactly what will change and where, ask (unless `--yes`), re-read the file so nothing the owner edited
 * meanwhile is written over, back it up, then rewrite it atomically with everything else kept. Running it
 * again once set up changes nothing. Each agent's file, value and faithful rewrite is an AgentSetupSpec.
 */
import { readConfigFile, replaceConfigFile, SetupError } from './config-file.js';

export interface AgentSetupSpec {
  /** The `burrow setup` target and the program's name on PATH. */
  readonly agent: 'claude' | 'codex' | 'gemini';
  /** What the owner calls it ("Codex CLI"). */
  readonly label: string;
  /** The setting as the owner would find it in the file ("[tui] notification_method"). */
  readonly setting: string;
  /** The value Burrow writes, as it reads in the file. */
  readonly value: string;
  /** What being set up means, after "<label> already …" / "<label> …" ("notifies in any terminal"). */
  readonly effect: string;
  /** Why, after "so" ("Codex writes the request itself as OSC 9, and Burrow passes it on"). */
  readonly because: string;
  path(env: Readonly<Record<string, string | undefined>>, homedir: string): string;
  /**
   * The file's current value (as it reads, null when unset), whether that is already set up, and a note when
   * something else in the file or elsewhere still stops it. @throws SetupError when the file cannot be read.
   */
  inspect(path: string, text: string | null): { before: string | null; setUp: boolean; note?: string };
  /** The new text, everything else kept. @throws SetupError when that cannot be done faithfully. */
  rewrite(path: string, text: string | null): string;
}

export interface AgentSetupOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly homedir: string;
  /** Change without asking (`--yes`). */
  readonly yes: boolean;
  readonly stdout: { write(text: string): unknown };
  /** Asks the user a question and resolves with the answer (null when there is no one to ask). */
  readonly prompt: (question: string) => Promise<string | null>;
  /** Wall-clock milliseconds, for the backup's name. */
  readonly now?: () => number;
}

export type AgentSetupResult =
  | { readonly status: 'unchanged'; readonly path: string }
  | { readonly status: 'declined'; readonly path: string }
  | {
      readonly status: 'changed';
      readonly path: string;
      /** The backup of the previous file, or null when there was no file. */
      readonly backup: string | null;
      /** The previous value as it read, or null when it was unset. */
      readonly before: string | null;
      readonly after: string;
    };

/** @throws SetupError when the file cannot be read, rewritten faithfully or written; it is then as it was. */
export async function runAgentSetup(
  spec: AgentSetupSpec,
  options: AgentSetupOptions,
): Promise<AgentSetupResult> {
  const { env, homedir, yes, stdout, prompt } = options;
  const now = options.now ?? Date.now;
  const path = spec.path(env, homedir);
  const file = readConfigFile(path);
  const current = spec.inspect(path, file.text);
  const note = current.note === undefined ? '' : `Note: ${current.note}\n`;
  if (current.setUp) {
    stdout.write(
      `${spec.label} already ${spec.effect}: ${spec.setting} is ${current.before} in ${path}.\n${note}`,
    );
    return { status: 'unchanged', path };
  }
  // Computed before asking, so a file Burrow cannot rewrite faithfully is refused before any question.
  const text = spec.rewrite(path, file.text);
  stdout.write(
    [
      `${spec.label} settings: ${path}${file.text === null ? ' (new file)' : ''}`,
      `  ${spec.setting}: ${current.before ?? '(not set)'} → ${spec.value}`,
      `so ${spec.because}.`,
      file.text === null
        ? 'Nothing else is written.'
        : 'Every other setting is kept; a backup is written first.',
      '',
    ].join('\n') + note,
  );
  if (!yes) {
    const answer = await prompt('Change it? [y/N] ');
    if (answer === null || !/^\s*y(es)?\s*$/i.test(answer)) {
      stdout.write('Nothing changed.\n');
      return { status: 'declined', path };
    }
  }
  // The owner may have edited the file while the question was open: never write over what was not shown.
  if (readConfigFile(path).text !== file.text)
    throw new SetupError(`${path} changed while Burrow was asking; nothing was changed. Run it again.`);
  const backup = replaceConfigFile(file, text, now());
  stdout.write(
    `${backup === null ? 'Created' : `Backed up to ${backup}; updated`} ${path}. ` +
      `${spec.label} sessions started from now on use it.\n`,
  );
  return { status: 'changed', path, backup, before: current.before, after: spec.value };
}
