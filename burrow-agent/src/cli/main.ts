/**
 * `burrow` entry point: finds the command, parses its arguments (node:util parseArgs, with Burrow's own checks
 * and messages, see `parseCommandArgs`), runs it, and turns every error into a message on stderr and a
 * documented exit code (see exit-codes.ts). Every message that may carry text from elsewhere goes through
 * `printable` (printable.ts).
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { AGENT_VERSION } from '../program/program.js';
import { printable, printableLines } from '../text/printable.js';
import { type CliIo, COMMANDS, type Command } from './commands.js';
import { CliError, EXIT_CODE_TABLE, ExitCode } from './exit-codes.js';

/**
 * Arguments that begin with '-' and still are values, never options: a device id (16 base64url characters,
 * `deviceIdFor`; `burrow devices` prints them as they are) and a negative number (`--timeout -1`,
 * `settings set pushDelayMs -5`). They travel through parseArgs as stand-ins (unless they name an option).
 */
const DASHED_VALUE = /^-(?:[A-Za-z0-9_-]{15}|\d+(?:\.\d+)?)$/;
/** Stands in for such an argument while parseArgs runs (NUL cannot come from a command line). */
const PLACEHOLDER = '\u0000arg';

export function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'burrow — your terminals, reachable from your phone',
    '',
    'Usage: burrow COMMAND [OPTIONS]   (burrow COMMAND --help for details; burrow --version)',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    '',
    EXIT_CODE_TABLE,
    '',
  ].join('\n');
}

function commandHelp(c: Command): string {
  const opts = Object.entries(c.options).map(([k, o]) => `  --${k}${o.type === 'string' ? ' VALUE' : ''}`);
  return [
    `Usage: ${c.usage}`,
    '',
    c.summary,
    ...(c.details ? ['', c.details] : []),
    ...(opts.length ? ['', 'Options:', ...opts] : []),
    '',
    EXIT_CODE_TABLE,
    '',
  ].join('\n');
}

type Options = NonNullable<ParseArgsConfig['options']>;
interface ParsedArgs {
  readonly values: Record<string, string | boolean | undefined>;
  readonly positionals: string[];
}

/**
 * parseArgs without its own error text: tokens are read leniently and checked here, so every mistake is said
 * in Burrow's words (which option, what is wrong with it, how to see the help) and negative numbers and
 * dash-leading ids are values. Throws CliError(Usage).
 */
export function parseCommandArgs(command: Command, argv: readonly string[]): ParsedArgs {
  const options: Options = { ...command.options, help: { type: 'boolean', short: 'h', default: false } };
  const known = new Set(Object.keys(options).map((o) => `--${o}`));
  const stash: string[] = [];
  let ended = false;
  const args = argv.map((a) => {
    if (a === '--') ended = true;
    if (ended || !DASHED_VALUE.test(a) || known.has(a.split('=')[0]!)) return a;
    stash.push(a);
    return `${PLACEHOLDER}${stash.length - 1}`;
  });
  const restore = (v: string) =>
    v.startsWith(PLACEHOLDER) ? stash[Number(v.slice(PLACEHOLDER.length))]! : v;
  const parsed = parseArgs({ args, options, allowPositionals: true, strict: false, tokens: true });
  const more = `see \`burrow ${command.name} --help\``;
  for (const t of parsed.tokens) {
    if (t.kind !== 'option') continue;
    const spec = Object.hasOwn(options, t.name) ? options[t.name] : undefined;
    const shown = printable(t.rawName, 64);
    if (spec === undefined) throw new CliError(ExitCode.Usage, `unknown option ${shown}; ${more}`);
    if (spec.type === 'boolean') {
      if (t.inlineValue === true) throw new CliError(ExitCode.Usage, `${shown} takes no value`);
      continue;
    }
    const value = t.value === undefined ? undefined : restore(t.value);
    // "--name --json": the next argument was an option, not this one's value (pass it as --name=--json).
    if (
      value === undefined ||
      (t.inlineValue === false && value.startsWith('-') && !DASHED_VALUE.test(value))
    )
      throw new CliError(ExitCode.Usage, `${shown} needs a value; ${more}`);
  }
  const values: Record<string, string | boolean | undefined> = {};
  for (const [k, v] of Object.entries(parsed.values)) {
    const one = Array.isArray(v) ? v.at(-1) : v;
    values[k] = typeof one === 'string' ? restore(one) : one;
  }
  return { values, positionals: parsed.positionals.map(restore) };
}

export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.stderr : io.stdout).write(mainHelp());
    return name === undefined ? ExitCode.Usage : ExitCode.Ok;
  }
  if (name === '--version' || name === '-V' || name === 'version') {
    io.stdout.write(`burrow ${AGENT_VERSION}\n`);
    return ExitCode.Ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    const what = name.startsWith('-') ? 'option' : 'command';
    io.stderr.write(`burrow: unknown ${what} "${printable(name, 64)}"; run \`burrow --help\` for the list\n`);
    return ExitCode.Usage;
  }
  let parsed: ParsedArgs;
  try {
    parsed = parseCommandArgs(command, rest);
  } catch (err) {
    io.stderr.write(`burrow ${name}: ${(err as Error).message}\nUsage: ${command.usage}\n`);
    return ExitCode.Usage;
  }
  if (parsed.values.help) {
    io.stdout.write(commandHelp(command));
    return ExitCode.Ok;
  }
  const [min, max] = command.positionals;
  if (parsed.positionals.length < min || parsed.positionals.length > max) {
    const n = parsed.positionals.length;
    const why = n < min ? 'missing an argument' : `too many arguments (${n})`;
    io.stderr.write(`burrow ${name}: ${why}\nUsage: ${command.usage}\n`);
    return ExitCode.Usage;
  }
  try {
    return await command.run({ values: parsed.values, positionals: parsed.positionals, io });
  } catch (err) {
    const e = err instanceof CliError ? err : new CliError(ExitCode.Failure, (err as Error).message);
    // A message may quote the relay, a phone or a session: shown, never interpreted, and on one line, so a
    // message cannot fake a prompt or another line of output (printable.ts).
    io.stderr.write(`burrow ${name}: ${printable(e.message)}\n`);
    return e.exitCode;
  }
}

/** Runs `main` for this process and exits with its code once stdout/stderr are flushed. */
export function run(): void {
  main(process.argv.slice(2), {
    stdin: process.stdin,
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
    cwd: process.cwd(),
  }).then(
    (code) => {
      process.exitCode = code;
      // The daemon and attach leave nothing behind; make sure no stray handle keeps the CLI alive.
      setImmediate(() => process.exit(code));
    },
    (err: unknown) => {
      process.stderr.write(
        `burrow: unexpected error: ${printableLines((err as Error).stack ?? String(err))}\n`,
      );
      process.exit(ExitCode.Failure);
    },
  );
}
