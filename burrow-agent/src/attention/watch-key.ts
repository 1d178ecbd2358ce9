/**
 * commandWatchKey: the name WATCHING rules are keyed by (alert-spec WATCHING Track → Rules). From a raw
 * command line it takes the last command of a list, the first stage of its pipeline, drops grouping, leading
 * `VAR=value` words, shell reserved words (fish's included) and transparent wrappers, and keys argv[0]'s
 * basename minus a launcher suffix — or `<runner> <script>` for script runners (`pnpm run dev` → `pnpm dev`).
 *
 * A shell given a script on its command line (`sh -c '…'`, `bash -lc '…'`, `fish -c '…'`) keys like the
 * script itself, the spec's rules applied to it (issue 23: `burrow new -- sh -c 'claude …'` is claude, the
 * most common way to start an agent with arguments or environment). Scripts nest at most MAX_SCRIPT_DEPTH
 * deep; deeper, the shell is the key.
 */

/** Longest command line looked at; the parser already bounds it, this keeps the function total on its own. */
export const MAX_COMMAND_LINE_CHARS = 4096;
/** Longest key produced (and longest rule accepted). */
export const MAX_WATCH_KEY_CHARS = 128;
/** Most words tokenized from one line; a pathological line keys on what fits. */
const MAX_TOKENS = 1024;
/** `sh -c "bash -c '…'"`: shells whose script is keyed in turn, at most this deep. */
const MAX_SCRIPT_DEPTH = 4;

type Token =
  | { readonly kind: 'word'; readonly text: string; readonly raw: string }
  | { readonly kind: 'op'; readonly text: string };

const LIST_OPS = new Set([';', ';;', '&', '&&', '||', '\n']);
const PIPE_OPS = new Set(['|', '|&']);
/** Words that open grammar rather than name a program: stripped when they lead a command. */
const LEADING_RESERVED = new Set([
  '!',
  '{',
  'do',
  'then',
  'else',
  'elif',
  'if',
  'while',
  'until',
  'and',
  'or',
  'not',
  'begin',
  'coproc',
]);
/** Closers: a segment they lead is skipped whole, with its redirection or pipe. */
const CLOSERS = new Set(['done', 'fi', 'esac', 'end', '}']);
/** Segments that are headers, not commands: `for x in …`, `case x in`, fish's `case pat` and `switch x`. */
const HEADERS = new Set(['for', 'select', 'case', 'switch', 'function']);

interface WrapperSpec {
  /** Flags that take no argument. */
  readonly flags: ReadonlySet<string>;
  /** Flags whose value is the next word (or after `=` in the long form). */
  readonly valued: ReadonlySet<string>;
  /** Positional words the wrapper consumes before the program (timeout's duration). */
  readonly positionals?: number;
  /** env-style: `VAR=value` words after the wrapper are skipped too. */
  readonly assignments?: boolean;
}

const set = (...xs: string[]): ReadonlySet<string> => new Set(xs);
/** Transparent wrappers: they run the program named after them, so the program is the key. */
const WRAPPERS: ReadonlyMap<string, WrapperSpec> = new Map<string, WrapperSpec>([
  [
    'sudo',
    {
      flags: set(
        '-E',
        '-H',
        '-n',
        '-k',
        '-K',
        '-b',
        '-S',
        '-A',
        '-P',
        '--preserve-env',
        '--non-interactive',
        '--login',
        '-i',
        '-s',
      ),
      valued: set(
        '-u',
        '-g',
        '-C',
        '-D',
        '-p',
        '-U',
        '-r',
        '-t',
        '-h',
        '--user',
        '--group',
        '--chdir',
        '--prompt',
      ),
    },
  ],
  ['doas', { flags: set('-n', '-s'), valued: set('-u', '-C') }],
  [
    'env',
    {
      flags: set('-i', '-0', '-v', '--ignore-environment', '--null', '--debug'),
      valued: set('-u', '-C', '--unset', '--chdir'),
      assignments: true,
    },
  ],
  ['nohup', { flags: set(), valued: set() }],
  ['time', { flags: set('-p', '-v', '-l'), valued: set('-f', '-o') }],
  ['nice', { flags: set(), valued: set('-n', '--adjustment') }],
  ['ionice', { flags: set('-t'), valued: set('-c', '-n', '-p') }],
  ['exec', { flags: set('-c', '-l'), valued: set('-a') }],
  ['command', { flags: set('-p'), valued: set() }],
  ['builtin', { flags: set(), valued: set() }],
  ['noglob', { flags: set(), valued: set() }],
  ['nocorrect', { flags: set(), valued: set() }],
  ['caffeinate', { flags: set('-d', '-i', '-m', '-s', '-u'), valued: set('-t', '-w') }],
  ['stdbuf', { flags: set(), valued: set('-i', '-o', '-e', '--input', '--output', '--error') }],
  [
    'timeout',
    {
      flags: set('--foreground', '--preserve-status', '-v', '--verbose'),
      valued: set('-s', '-k', '--signal', '--kill-after'),
      positionals: 1,
    },
  ],
  [
    'npx',
    { flags: set('-y', '--yes', '--no', '-q', '--quiet', '--no-install'), valued: set('-p', '--package') },
  ],
  ['pnpx', { flags: set('-y', '--yes'), valued: set() }],
  ['bunx', { flags: set('--bun', '-y'), valued: set('-p', '--package') }],
]);

/** Script runners: `<runner> [run] <script>` keys as `<runner> <script>`. */
const RUNNERS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['npm', set('run', 'run-script')],
  ['pnpm', set('run')],
  ['yarn', set('run')],
  ['bun', set('run')],
  ['deno', set('run', 'task')],
]);

/**
 * Shells that run a script given with `-c` (alone or in a cluster: `-lc`, `-ec`), and their options that
 * take a value (the next word), so `bash -o pipefail -c '…'` still finds the script. fish also takes
 * `--command=…` / `--command …`.
 */
const SCRIPT_SHELLS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['sh', set('-o', '+o')],
  ['ash', set('-o', '+o')],
  ['dash', set('-o', '+o')],
  ['bash', set('-o', '+o', '-O', '+O', '--rcfile', '--init-file')],
  ['zsh', set('-o', '+o')],
  ['ksh', set('-o', '+o')],
  ['mksh', set('-o', '+o')],
  ['yash', set('-o', '+o')],
  ['fish', set('-C', '--init-command', '-d', '--debug', '-o', '--debug-output', '--features')],
]);

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*(\[[^\]]*\])?\+?=/;
const REDIRECT_PREFIX = /^(\d*|&)(>&|<&|>\||<>|>>|>|<<<|<<-|<<|<)/;
const WORD_BREAK = new Set([' ', '\t', '\r', '\n', ';', '|', '(', ')', '&', '<', '>']);
const LAUNCHER_SUFFIX = /\.(exe|cmd|bat|com|ps1)$/i;
const VALID_KEY_WORD = /^[A-Za-z0-9_+@][A-Za-z0-9_.+@:-]*$/;

/** Cuts one line into words and operators, honouring quotes, escapes, `$(…)` and backticks. Never throws. */
function tokenize(line: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const n = line.length;
  while (i < n && tokens.length < MAX_TOKENS) {
    const c = line[i]!;
    if (c === '\\' && line[i + 1] === '\n') {
      i += 2;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (c === '#') {
      while (i < n && line[i] !== '\n') i++;
      continue;
    }
    if (c === '\n' || c === ';' || c === '&' || c === '|' || c === '(' || c === ')') {
      const two = line.slice(i, i + 2);
      if (two === '&&' || two === '||' || two === ';;' || two === '|&') {
        tokens.push({ kind: 'op', text: two });
        i += 2;
      } else if (c === '&' && line[i + 1] === '>') {
        i = readWord(line, i, tokens); // `&>file`
      } else {
        tokens.push({ kind: 'op', text: c });
        i++;
      }
      continue;
    }
    i = readWord(line, i, tokens);
  }
  return tokens;
}

/** Reads one word starting at `start`; pushes it and returns the index after it. */
function readWord(line: string, start: number, out: Token[]): number {
  let text = '';
  let i = start;
  const n = line.length;
  // A redirection operator leads its word (`2>&1`, `&>log`, `>out`); its target may follow attached.
  const prefix = REDIRECT_PREFIX.exec(line.slice(start, start + 8));
  if (prefix) {
    text = prefix[0];
    i += prefix[0].length;
  }
  for (; i < n; i++) {
    const c = line[i]!;
    if (WORD_BREAK.has(c)) break;
    if (c === '\\') {
      if (i + 1 < n) text += line[++i];
      continue;
    }
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      const stop = end === -1 ? n : end;
      text += line.slice(i + 1, stop);
      i = stop;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      for (; j < n && line[j] !== '"'; j++) {
        if (line[j] === '\\' && j + 1 < n) j++;
        text += line[j];
      }
      i = j;
      continue;
    }
    if (c === '`' || (c === '$' && line[i + 1] === '(')) {
      const stop = c === '`' ? endOfBacktick(line, i) : endOfSubstitution(line, i + 1);
      text += line.slice(i, stop + 1);
      i = stop;
      continue;
    }
    text += c;
  }
  if (i === start) {
    // Nothing consumable (a stray `&`): emit it as an operator so the tokenizer always advances.
    out.push({ kind: 'op', text: line[i]! });
    return i + 1;
  }
  out.push({ kind: 'word', text, raw: line.slice(start, i) });
  return i;
}

function endOfBacktick(line: string, open: number): number {
  const end = line.indexOf('`', open + 1);
  return end === -1 ? line.length - 1 : end;
}

/** Index of the `)` closing the `(` at `open`, or the last index when unbalanced. */
function endOfSubstitution(line: string, open: number): number {
  let depth = 0;
  for (let j = open; j < line.length; j++) {
    if (line[j] === '(') depth++;
    else if (line[j] === ')' && --depth === 0) return j;
  }
  return line.length - 1;
}

/** Splits tokens at the given operators (operators themselves dropped). */
function splitAt(tokens: readonly Token[], ops: ReadonlySet<string>): Token[][] {
  const parts: Token[][] = [[]];
  for (const t of tokens) {
    if (t.kind === 'op' && ops.has(t.text)) parts.push([]);
    else parts[parts.length - 1]!.push(t);
  }
  return parts;
}

function isRedirection(raw: string): boolean {
  return REDIRECT_PREFIX.test(raw);
}

/** Drops redirections (with a separate target) and grouping parentheses, leaving plain words. */
function plainWords(stage: readonly Token[]): string[] {
  const words: string[] = [];
  for (let i = 0; i < stage.length; i++) {
    const t = stage[i]!;
    if (t.kind === 'op') continue;
    if (isRedirection(t.raw)) {
      if (REDIRECT_PREFIX.exec(t.raw)![0] === t.raw) i++; // a separate target is skipped with it
      continue;
    }
    words.push(t.text);
  }
  return words;
}

/** Strips a leading case pattern (`a|b)` … ) from a segment's tokens. */
function dropCasePattern(seg: readonly Token[]): readonly Token[] {
  const close = seg.findIndex((t) => t.kind === 'op' && t.text === ')');
  // `b) make` is a pattern; `make )` closes a subshell, with nothing after it.
  if (
    close > 0 &&
    close < seg.length - 1 &&
    seg.slice(0, close).every((t) => t.kind === 'word' || t.text === '|')
  ) {
    return seg.slice(close + 1);
  }
  return seg;
}

function basename(word: string): string {
  const cut = Math.max(word.lastIndexOf('/'), word.lastIndexOf('\\'));
  return word.slice(cut + 1).replace(LAUNCHER_SUFFIX, '');
}

function validKeyWord(word: string): boolean {
  return word.length > 0 && word.length <= MAX_WATCH_KEY_CHARS && VALID_KEY_WORD.test(word);
}

/** Skips one wrapper and its flags; returns the index of the program, or -1 when a flag is unknown. */
function skipWrapper(words: readonly string[], at: number, spec: WrapperSpec): number {
  let i = at + 1;
  let positionals = spec.positionals ?? 0;
  while (i < words.length) {
    const w = words[i]!;
    if (w === '--') return i + 1;
    if (w.startsWith('-') && w.length > 1) {
      const name = w.includes('=') ? w.slice(0, w.indexOf('=')) : w;
      if (spec.flags.has(name)) i++;
      else if (spec.valued.has(name)) i += w.includes('=') ? 1 : 2;
      else if (!w.startsWith('--') && w.length > 2 && spec.valued.has(w.slice(0, 2)))
        i++; // `-uroot`
      else if (/^-\d+$/.test(w) && words[at] === 'nice') i++;
      else return -1;
      continue;
    }
    if (spec.assignments && ASSIGNMENT.test(w)) {
      i++;
      continue;
    }
    if (positionals > 0) {
      positionals--;
      i++;
      continue;
    }
    return i;
  }
  return i;
}

/**
 * The script a shell runs from its command line (`-c SCRIPT`, fish `--command=SCRIPT`), or null when it runs a
 * file or reads commands from its input. `at` is the shell's index in `words`.
 */
function shellScript(words: readonly string[], at: number, valued: ReadonlySet<string>): string | null {
  let command = false;
  for (let i = at + 1; i < words.length; i++) {
    const w = words[i]!;
    if (w === '--' || w === '-') return command ? (words[i + 1] ?? null) : null;
    if (w.startsWith('--command=')) return w.slice('--command='.length);
    if (w === '--command') return words[i + 1] ?? null;
    if (valued.has(w)) {
      i++;
      continue;
    }
    if (/^[-+][A-Za-z]+$/.test(w)) {
      if (w[0] === '-' && w.includes('c')) command = true;
      continue;
    }
    if (w.startsWith('--')) continue; // --login, --norc, --posix, --no-config: flags without a value
    // The first operand: with -c it is the script; without, a script file, and the shell itself is the key.
    return command ? w : null;
  }
  return null;
}

/** The key of one pipeline's first stage, or null when it names no program. */
function keyOfWords(all: readonly string[], depth: number): string | null {
  let i = 0;
  while (i < all.length) {
    const w = all[i]!;
    if (LEADING_RESERVED.has(w) || ASSIGNMENT.test(w)) {
      i++;
      continue;
    }
    const spec = WRAPPERS.get(basename(w));
    if (spec) {
      const next = skipWrapper(all, i, spec);
      if (next === -1) return validKeyWord(basename(w)) ? basename(w) : null;
      if (next >= all.length) return validKeyWord(basename(w)) ? basename(w) : null;
      i = next;
      continue;
    }
    break;
  }
  const argv0 = all[i];
  if (argv0 === undefined || /[$`]/.test(argv0)) return null;
  const program = basename(argv0);
  if (!validKeyWord(program)) return null;
  const shellOptions = SCRIPT_SHELLS.get(program);
  if (shellOptions !== undefined && depth < MAX_SCRIPT_DEPTH) {
    const script = shellScript(all, i, shellOptions);
    if (script !== null) return keyOfLine(script, depth + 1) ?? program;
  }
  const runs = RUNNERS.get(program);
  if (!runs) return program;
  let j = i + 1;
  while (j < all.length && all[j]!.startsWith('-')) j++;
  if (j < all.length && runs.has(all[j]!)) j++;
  while (j < all.length && all[j]!.startsWith('-')) j++;
  const script = all[j];
  if (script === undefined || !validKeyWord(script)) return program;
  const key = `${program} ${script}`;
  return key.length <= MAX_WATCH_KEY_CHARS ? key : program;
}

/** The key of one list segment, or null when it is grammar (a closer, a header) or names nothing. */
function keyOfSegment(seg: readonly Token[], depth: number): string | null {
  let rest = seg.filter((t) => !(t.kind === 'op' && t.text === '('));
  // bash `case x in pat) cmd`: the header runs through `in`, then the pattern.
  if (rest[0]?.kind === 'word' && rest[0].text === 'case') {
    const inAt = rest.findIndex((t) => t.kind === 'word' && t.text === 'in');
    if (inAt === -1) return null; // fish's `case pattern` line
    rest = rest.slice(inAt + 1);
  }
  const stripped = dropCasePattern(rest);
  const first = stripped.find((t) => t.kind === 'word');
  if (first === undefined || CLOSERS.has(first.text) || HEADERS.has(first.text)) return null;
  const stage = splitAt(stripped, PIPE_OPS)[0]!;
  return keyOfWords(plainWords(stage), depth);
}

/**
 * The watch key of a raw command line, or null when it names no program. Total on strings: never throws for
 * any string input; a non-string is a TypeError.
 */
export function commandWatchKey(commandLine: string): string | null {
  if (typeof commandLine !== 'string') throw new TypeError('commandWatchKey expects a string');
  return keyOfLine(commandLine, 0);
}

/** commandWatchKey at script depth `depth` (0 for the command line itself). */
function keyOfLine(commandLine: string, depth: number): string | null {
  const tokens = tokenize(commandLine.slice(0, MAX_COMMAND_LINE_CHARS));
  const segments = splitAt(tokens, LIST_OPS);
  // The last command of the list; walking back past closers (`done`, `fi`, …) and empty segments (`make &`).
  for (let s = segments.length - 1; s >= 0; s--) {
    const key = keyOfSegment(segments[s]!, depth);
    if (key !== null) return key;
    const seg = segments[s]!;
    const first = seg.find((t) => t.kind === 'word');
    const skippable = first === undefined || CLOSERS.has(first.text) || HEADERS.has(first.text);
    if (!skippable) return null;
  }
  return null;
}
