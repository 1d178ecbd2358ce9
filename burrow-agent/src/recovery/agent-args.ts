/**
 * Which of an agent's command-line arguments a resume keeps. A person who ran `claude --model opus
 * --dangerously-skip-permissions "fix the build"` wants the conversation back with the same model and
 * permissions — but not the prompt sent again, and not the old `--continue` / `--resume X` next to the new
 * one. Each agent's table (agents/*.ts) names, from its `--help` at the pinned version, the options that take
 * a value (so a value is never mistaken for a prompt), those that take several, and those a resume drops.
 * An option the table does not know is kept as it was (`--x=v` whole; `--x` alone).
 */

export interface ArgTable {
  /** Options followed by exactly one value (`--model opus`; `--model=opus` is one word either way). */
  readonly value: ReadonlySet<string>;
  /** Options whose value is optional: the next word is theirs unless it starts with `-`. */
  readonly optionalValue: ReadonlySet<string>;
  /** Options taking every following word up to the next option (`--add-dir a b`). */
  readonly variadic: ReadonlySet<string>;
  /** Options a resume drops, with their values: session selection, prompts, one-shot modes. */
  readonly drop: ReadonlySet<string>;
}

export interface SplitArgs {
  /** The options kept, in order, with their values. */
  readonly kept: readonly string[];
  /** Words that are no option's value: a prompt, a project path, a subcommand. */
  readonly positionals: readonly string[];
}

/** Splits `args` (the words after the program) by `table`. Pure. */
export function splitArgs(args: readonly string[], table: ArgTable): SplitArgs {
  const kept: string[] = [];
  const positionals: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word === '--') {
      positionals.push(...args.slice(i + 1));
      break;
    }
    if (!word.startsWith('-') || word === '-') {
      positionals.push(word);
      continue;
    }
    const eq = word.indexOf('=');
    const name = eq > 0 && word.startsWith('--') ? word.slice(0, eq) : word;
    const own: string[] = [word];
    if (eq < 0 || !word.startsWith('--')) {
      const next = () => args[i + 1];
      if (table.value.has(name) && next() !== undefined) own.push(args[++i]!);
      else if (table.optionalValue.has(name) && next() !== undefined && !next()!.startsWith('-'))
        own.push(args[++i]!);
      else if (table.variadic.has(name))
        while (next() !== undefined && !next()!.startsWith('-')) own.push(args[++i]!);
    }
    if (!table.drop.has(name)) kept.push(...own);
  }
  return { kept, positionals };
}

export const set = (...xs: string[]): ReadonlySet<string> => new Set(xs);
