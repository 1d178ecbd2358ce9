/**
 * tmux (Debian's, 3.3a here) as the independent reference terminal for screen conformance (issue 22): a private
 * tmux server per test file, panes of an exact size, the screen read back cell by cell (`capture-pane -p -e -N`,
 * its SGR parsed into attributes) and the modes tmux reports (`display -p` format variables).
 *
 * Cells are compared as glyphs in screen order: a wide glyph is one entry (tmux skips its padding cell, and the
 * xterm.js side skips its placeholder), so a glyph one terminal counts one column wide and the other two shifts
 * every later entry of the row, and shows up as differing cells.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** One cell: its glyph (base character and the zero-width ones that joined it) and its attributes. */
export interface Cell {
  readonly text: string;
  /** bold dim italic ul(0–5) blink inverse invisible strike overline fg bg ulColor, e.g. `b- - u3 … fp1 bd ud`. */
  readonly attrs: string;
}

export interface ScreenModes {
  readonly cursor: string;
  readonly cursorVisible: boolean;
  readonly insert: boolean;
  readonly applicationCursor: boolean;
  readonly applicationKeypad: boolean;
  readonly mouse: string;
  readonly mouseSgr: boolean;
  readonly origin: boolean;
  readonly wrap: boolean;
  readonly alternate: boolean;
  readonly scrollRegion: string;
  readonly tabs: string;
  readonly title: string;
}

export interface ScreenCapture {
  readonly rows: Cell[][];
  readonly modes: ScreenModes;
}

/** Characters that join the glyph before them (combining marks, ZWJ, variation selectors, ZWSP). */
const JOINS = /^(?:\p{M}|\u200b|\u200d|\ufe0e|\ufe0f)$/u;

export class Attrs {
  bold = false;
  dim = false;
  italic = false;
  ul = 0;
  blink = false;
  inverse = false;
  invisible = false;
  strike = false;
  overline = false;
  fg = 'd';
  bg = 'd';
  ulColor = 'd';

  key(): string {
    const f = (on: boolean, c: string) => (on ? c : '-');
    return (
      `${f(this.bold, 'b')}${f(this.dim, 'd')}${f(this.italic, 'i')}u${this.ul}${f(this.blink, 'k')}` +
      `${f(this.inverse, 'v')}${f(this.invisible, 'h')}${f(this.strike, 's')}${f(this.overline, 'o')}` +
      // An underline colour without an underline shows nowhere (xterm.js does not even keep it).
      ` f${this.fg} b${this.bg} u${this.ul === 0 ? 'd' : this.ulColor}`
    );
  }

  reset(): void {
    Object.assign(this, new Attrs());
  }
}

/** Palette index or RGB from SGR 38/48/58 parameters starting at `i` (after the 38); returns the next index. */
function extColour(parts: string[][], i: number): [string, number] {
  const p = parts[i]!;
  // Colon form inside one parameter: 38:5:n or 38:2::r:g:b.
  if (p.length > 1) {
    if (p[1] === '5') return [`p${Number(p[2])}`, i + 1];
    const rgb = p.slice(p.length - 3).map(Number);
    return [`r${rgb.map((n) => n.toString(16).padStart(2, '0')).join('')}`, i + 1];
  }
  const mode = parts[i + 1]?.[0];
  if (mode === '5') return [`p${Number(parts[i + 2]?.[0])}`, i + 3];
  if (mode === '2') {
    const rgb = [i + 2, i + 3, i + 4].map((k) => Number(parts[k]?.[0] ?? 0));
    return [`r${rgb.map((n) => n.toString(16).padStart(2, '0')).join('')}`, i + 5];
  }
  return ['d', i + 1];
}

/** Applies one SGR's parameters (`1;4:3;38;5;1`) to `a`. */
export function applySgr(a: Attrs, params: string): void {
  const parts = (params === '' ? ['0'] : params.split(';')).map((p) => p.split(':'));
  for (let i = 0; i < parts.length; ) {
    const p = parts[i]!;
    const n = Number(p[0] === '' ? 0 : p[0]);
    // tmux 3.3a writes overline (53) as `5:3` in capture-pane output.
    if (p.length === 2 && p[0] === '5' && p[1] === '3') {
      a.overline = true;
      i++;
      continue;
    }
    if (n === 38 || n === 48 || n === 58) {
      const [c, next] = extColour(parts, i);
      if (n === 38) a.fg = c;
      else if (n === 48) a.bg = c;
      else a.ulColor = c;
      i = next;
      continue;
    }
    i++;
    if (n === 0) a.reset();
    else if (n === 1) a.bold = true;
    else if (n === 2) a.dim = true;
    else if (n === 3) a.italic = true;
    else if (n === 4) a.ul = p.length > 1 ? Number(p[1]) : 1;
    else if (n === 5 || n === 6) a.blink = true;
    else if (n === 7) a.inverse = true;
    else if (n === 8) a.invisible = true;
    else if (n === 9) a.strike = true;
    else if (n === 21) a.ul = 2;
    else if (n === 22) a.bold = a.dim = false;
    else if (n === 23) a.italic = false;
    else if (n === 24) a.ul = 0;
    else if (n === 25) a.blink = false;
    else if (n === 27) a.inverse = false;
    else if (n === 28) a.invisible = false;
    else if (n === 29) a.strike = false;
    else if (n === 53) a.overline = true;
    else if (n === 55) a.overline = false;
    else if (n === 59) a.ulColor = 'd';
    else if (n >= 30 && n <= 37) a.fg = `p${n - 30}`;
    else if (n === 39) a.fg = 'd';
    else if (n >= 40 && n <= 47) a.bg = `p${n - 40}`;
    else if (n === 49) a.bg = 'd';
    else if (n >= 90 && n <= 97) a.fg = `p${n - 82}`;
    else if (n >= 100 && n <= 107) a.bg = `p${n - 92}`;
  }
}

/** DEC Special Graphics (VT100 line drawing), as tmux marks such cells with SO … SI in its capture. */
const DEC_GRAPHICS: Record<string, string> = Object.fromEntries(
  [...'`abcdefghijklmnopqrstuvwxyz{|}~'].map((c, i) => [c, [...'◆▒␉␌␍␊°±␤␋┘┐┌└┼⎺⎻─⎼⎽├┤┴┬│≤≥π≠£·'][i]!]),
);

/** Parses `capture-pane -p -e -N` output into rows of cells. */
export function parseCapture(text: string, rows: number): Cell[][] {
  const lines = text.split('\n').slice(0, rows);
  const a = new Attrs();
  // Like the attributes, the line-drawing set carries over from one line to the next.
  let graphics = false;
  return lines.map((line) => {
    const cells: Cell[] = [];
    // tmux starts every line from the attributes the previous one ended with; blanks keep the current ones.
    for (let i = 0; i < line.length; ) {
      if (line[i] === '\x0e' || line[i] === '\x0f') {
        graphics = line[i] === '\x0e';
        i++;
        continue;
      }
      if (line[i] === '\x1b' && line[i + 1] === '[') {
        const end = line.indexOf('m', i);
        applySgr(a, line.slice(i + 2, end));
        i = end + 1;
        continue;
      }
      const cp = line.codePointAt(i)!;
      const ch = String.fromCodePoint(cp);
      i += ch.length;
      if (JOINS.test(ch) && cells.length > 0) {
        const last = cells.pop()!;
        cells.push({ text: last.text + ch, attrs: last.attrs });
        continue;
      }
      cells.push({ text: graphics ? (DEC_GRAPHICS[ch] ?? ch) : ch, attrs: a.key() });
    }
    return cells;
  });
}

const MODE_FORMAT = [
  '#{cursor_x},#{cursor_y}',
  '#{cursor_flag}',
  '#{insert_flag}',
  '#{keypad_cursor_flag}',
  '#{keypad_flag}',
  '#{mouse_standard_flag}#{mouse_button_flag}#{mouse_all_flag}',
  '#{mouse_sgr_flag}',
  '#{origin_flag}',
  '#{wrap_flag}',
  '#{alternate_on}',
  '#{scroll_region_upper},#{scroll_region_lower}',
  '#{pane_tabs}',
  '#{pane_title}',
].join('\t');

function parseModes(line: string): ScreenModes {
  const f = line.replace(/\n$/, '').split('\t');
  const on = (s: string | undefined) => s === '1';
  const mouse = f[5] ?? '000';
  return {
    cursor: f[0]!,
    cursorVisible: on(f[1]),
    insert: on(f[2]),
    applicationCursor: on(f[3]),
    applicationKeypad: on(f[4]),
    mouse: mouse[2] === '1' ? 'any' : mouse[1] === '1' ? 'drag' : mouse[0] === '1' ? 'vt200' : 'none',
    mouseSgr: on(f[6]),
    origin: on(f[7]),
    wrap: on(f[8]),
    alternate: on(f[9]),
    scrollRegion: f[10]!,
    tabs: f[11]!,
    title: f[12] ?? '',
  };
}

/** A private tmux server; every pane it makes has the given size. */
export class TmuxServer {
  readonly socket: string;
  readonly dir: string;
  #n = 0;
  /** feed() panes: the file their shell writes once every byte went in. */
  readonly #fed = new Map<string, string>();

  constructor(
    readonly cols: number,
    readonly rows: number,
    readonly env: Readonly<Record<string, string | undefined>>,
  ) {
    if (spawnSync('tmux', ['-V']).status !== 0) {
      throw new Error(
        'tmux is not installed: the screen-conformance test needs it (Debian package tmux, .ci/run)',
      );
    }
    this.dir = mkdtempSync(join(tmpdir(), 'burrow-tmux-'));
    this.socket = join(this.dir, 'sock');
    const conf = join(this.dir, 'tmux.conf');
    writeFileSync(
      conf,
      [
        'set -g status off',
        `set -g default-size ${cols}x${rows}`,
        'set -g remain-on-exit on',
        'set -g history-limit 2000',
        'set -g default-terminal xterm-256color',
      ].join('\n'),
    );
    this.tmux('-f', conf, 'start-server', ';', 'set', '-g', 'exit-empty', 'off');
  }

  tmux(...args: string[]): string {
    return execFileSync('tmux', ['-S', this.socket, ...args], {
      env: { ...process.env, ...this.env, TMUX: undefined } as NodeJS.ProcessEnv,
      encoding: 'utf8',
    });
  }

  /** A pane running `command` (argv; run through sh -c), with `env`; its target name. */
  pane(command: string, env: Readonly<Record<string, string>> = {}): string {
    const name = `p${++this.#n}`;
    const envArgs = Object.entries({ ...this.env, ...env }).flatMap(([k, v]) =>
      v === undefined ? [] : ['-e', `${k}=${v}`],
    );
    this.tmux(
      'new-session',
      '-d',
      '-s',
      name,
      '-x',
      String(this.cols),
      '-y',
      String(this.rows),
      ...envArgs,
      command,
    );
    // A pane's title starts as the host name; a program that sets none should compare as none.
    this.tmux('select-pane', '-t', name, '-T', '');
    return name;
  }

  /**
   * A pane fed exactly `bytes`, as a terminal would get them from a program: the pane's tty in raw mode with
   * output post-processing off, so no byte is added or changed on the way (a bare LF stays a bare LF).
   */
  feed(bytes: Uint8Array): string {
    const file = join(this.dir, `bytes-${this.#n + 1}`);
    writeFileSync(file, bytes);
    // The pane waits for `go` (written once pane() has cleared the title, so the bytes can set their own) and
    // marks `done` once cat has handed every byte to the pane's tty: fed() is a fact, not a guess (a fixed
    // sleep here lost the race on a loaded machine and a blank pane was taken for the reference).
    const name = this.pane(
      `stty raw -echo -opost; while [ ! -e ${file}.go ]; do sleep 0.01; done; cat ${file}; : > ${file}.done; exec sleep 100000`,
    );
    writeFileSync(`${file}.go`, '');
    this.#fed.set(name, `${file}.done`);
    return name;
  }

  /**
   * Whether a feed() pane's bytes all went into its tty. tmux may still be reading the last of them (at most
   * the tty's buffer): wait for the pane to be stable after this.
   */
  fed(target: string): boolean {
    const done = this.#fed.get(target);
    if (done === undefined) throw new Error(`${target} is not a feed() pane`);
    return existsSync(done);
  }

  capture(target: string): ScreenCapture {
    const text = this.tmux('capture-pane', '-p', '-e', '-N', '-t', target);
    const modes = this.tmux('display', '-p', '-t', target, MODE_FORMAT);
    return { rows: parseCapture(text, this.rows), modes: parseModes(modes) };
  }

  /** The pane's plain text (to wait on). */
  text(target: string): string {
    return this.tmux('capture-pane', '-p', '-t', target);
  }

  kill(target: string): void {
    try {
      this.tmux('kill-session', '-t', target);
    } catch {
      // already gone
    }
  }

  close(): void {
    try {
      this.tmux('kill-server');
    } catch {
      // not running
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

const BLANK: Cell = { text: ' ', attrs: new Attrs().key() };

/**
 * Cells that differ, in text and in attributes only, between two screens (row by row, glyph by glyph). A row
 * shorter than the other is padded with default blanks: tmux captures a line only as far as it was ever
 * written (an insert or an erase writes it to the end), which the eye cannot tell from blanks.
 */
export function diffCells(
  ref: Cell[][],
  got: Cell[][],
  options: { lineEndBackground?: boolean } = {},
): { text: number; attrs: number; first: string[] } {
  let text = 0;
  let attrs = 0;
  const first: string[] = [];
  for (let y = 0; y < Math.max(ref.length, got.length); y++) {
    const r = ref[y] ?? [];
    const g = got[y] ?? [];
    // Where the row's trailing blanks start in the reference (see `lineEndBackground`).
    let tail = r.length;
    while (tail > 0 && r[tail - 1]!.text === ' ' && r[tail - 1]!.attrs === BLANK.attrs) tail--;
    for (let x = 0; x < Math.max(r.length, g.length); x++) {
      const a = r[x] ?? BLANK;
      let b = g[x] ?? BLANK;
      // `lineEndBackground: false`: a trailing blank the reference shows plain may carry a background in the
      // viewer (tmux's capture-pane drops the colour of blanks erased to the end of a line).
      if (options.lineEndBackground === false && x >= tail && b.text === ' ') {
        b = { text: ' ', attrs: b.attrs.replace(/ b[^ ]+ /, ' bd ') };
      }
      if (a?.text !== b?.text) {
        text++;
        if (first.length < 6)
          first.push(`row ${y} col ${x}: text ${JSON.stringify(a?.text)} ≠ ${JSON.stringify(b?.text)}`);
      } else if (a?.attrs !== b?.attrs) {
        attrs++;
        if (first.length < 6)
          first.push(`row ${y} col ${x} ${JSON.stringify(a?.text)}: ${a?.attrs} ≠ ${b?.attrs}`);
      }
    }
  }
  return { text, attrs, first };
}

/** Modes that differ. */
export function diffModes(
  ref: ScreenModes,
  got: ScreenModes,
  ignore: readonly (keyof ScreenModes)[] = [],
): string[] {
  const out: string[] = [];
  for (const k of Object.keys(ref) as (keyof ScreenModes)[]) {
    if (ignore.includes(k)) continue;
    if (ref[k] !== got[k]) out.push(`${k}: ${JSON.stringify(ref[k])} ≠ ${JSON.stringify(got[k])}`);
  }
  return out;
}
