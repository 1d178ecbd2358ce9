/**
 * `burrow` entry point: finds the command, parses its arguments with node:util parseArgs, runs it, and turns
 * every error into a message on stderr and a documented exit code (see exit-codes.ts).
 */
import { parseArgs } from 'node:util';
import { type CliIo, COMMANDS, type Command } from './commands.js';
import { CliError, EXIT_CODE_TABLE, ExitCode } from './exit-codes.js';

/** A device id (16 base64url characters, `deviceIdFor`) that happens to begin with '-'. */
const ID_STARTING_WITH_DASH = /^-[A-Za-z0-9_-]{15}$/;
/** Stands in for such an id while parseArgs runs (NUL cannot come from a command line). */
const ID_PLACEHOLDER = '\u0000id';

export function mainHelp(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    'burrow — your terminals, reachable from your phone',
    '',
    'Usage: burrow COMMAND [OPTIONS]   (burrow COMMAND --help for details)',
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

export async function main(argv: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? io.stderr : io.stdout).write(mainHelp());
    return name === undefined ? ExitCode.Usage : ExitCode.Ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined) {
    io.stderr.write(`burrow: unknown command "${name}"; run \`burrow --help\` for the list\n`);
    return ExitCode.Usage;
  }
  // Device ids are 16 base64url characters and may begin with '-' (`burrow devices` prints them), so one typed
  // as printed must not be read as an option: such tokens travel as positionals (unless they name an option).
  const known = new Set(Object.keys(command.options).map((o) => `--${o}`));
  const ids: string[] = [];
  const args = rest.map((a) => {
    if (!ID_STARTING_WITH_DASH.test(a) || known.has(a.split('=')[0]!)) return a;
    ids.push(a);
    return `${ID_PLACEHOLDER}${ids.length - 1}`;
  });
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args,
      options: { ...command.options, help: { type: 'boolean', short: 'h', default: false } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    io.stderr.write(`burrow ${name}: ${(err as Error).message}\nUsage: ${command.usage}\n`);
    return ExitCode.Usage;
  }
  parsed.positionals = parsed.positionals.map((p) =>
    p.startsWith(ID_PLACEHOLDER) ? ids[Number(p.slice(ID_PLACEHOLDER.length))]! : p,
  );
  if (parsed.values.help) {
    io.stdout.write(commandHelp(command));
    return ExitCode.Ok;
  }
  const [min, max] = command.positionals;
  if (parsed.positionals.length < min || parsed.positionals.length > max) {
    io.stderr.write(`burrow ${name}: wrong number of arguments\nUsage: ${command.usage}\n`);
    return ExitCode.Usage;
  }
  try {
    return await command.run({
      values: parsed.values as Record<string, string | boolean | undefined>,
      positionals: parsed.positionals,
      io,
    });
  } catch (err) {
    const e = err instanceof CliError ? err : new CliError(ExitCode.Failure, (err as Error).message);
    io.stderr.write(`burrow ${name}: ${e.message}\n`);
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
      process.stderr.write(`burrow: unexpected error: ${(err as Error).stack ?? String(err)}\n`);
      process.exit(ExitCode.Failure);
    },
  );
}
