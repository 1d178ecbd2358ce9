/**
 * Reads what a program asked of its terminal out of the raw bytes it wrote: bells, OSC strings (titles 0/1/2,
 * notifications 9 / 99 / 777, Codex's 7501, progress 9;4, queries such as kitty's `99;…:p=?`), DEC private
 * mode changes (focus reporting 1004, bracketed paste 2004, the alternate screen 1049, synchronized output
 * 2026) and the queries that wait for the terminal's answer. Issue 23 needs exactly these facts per agent.
 *
 * A small table-driven scanner rather than a full VT parser (xterm.js's parser hides OSC strings it has no
 * handler for and BELs inside them); it only needs to find sequence boundaries: ESC ] … (BEL | ESC \),
 * ESC P / X / ^ / _ … ESC \ (skipped), CSI … final byte, and a BEL anywhere else.
 */

export type TerminalSignal =
  | { readonly kind: 'bel'; readonly at: number }
  | { readonly kind: 'osc'; readonly at: number; readonly code: string; readonly payload: string }
  | { readonly kind: 'mode'; readonly at: number; readonly mode: number; readonly set: boolean }
  | { readonly kind: 'query'; readonly at: number; readonly query: string };

/** One PTY read and when it arrived (ms since the program started). */
export interface Chunk {
  readonly at: number;
  readonly data: string;
}

/** An OSC string longer than this is cut in reports (a title or a notification is short; images are not). */
export const MAX_OSC_PAYLOAD_CHARS = 2_000;

/** CSI sequences that ask the terminal something, by their exact bytes after ESC [ (name for the report). */
const CSI_QUERIES: Readonly<Record<string, string>> = {
  c: 'DA1 (primary device attributes)',
  '0c': 'DA1 (primary device attributes)',
  '>c': 'DA2 (secondary device attributes)',
  '>0c': 'DA2 (secondary device attributes)',
  '6n': 'DSR cursor position',
  '?6n': 'DECXCPR cursor position',
  '5n': 'DSR status',
  '?u': 'kitty keyboard protocol flags',
  '>q': 'XTVERSION',
  '>0q': 'XTVERSION',
  '14t': 'window size in pixels',
  '16t': 'cell size in pixels',
  '18t': 'text area size in cells',
};

const ESC = '\x1b';
const BEL = '\x07';

/** Every signal in `chunks`, each stamped with the arrival time of the chunk where it ends. */
export function scanSignals(chunks: readonly Chunk[]): TerminalSignal[] {
  const text = chunks.map((c) => c.data).join('');
  const ends: number[] = [];
  let total = 0;
  for (const c of chunks) {
    total += c.data.length;
    ends.push(total);
  }
  let chunkIndex = 0;
  const timeAt = (offset: number) => {
    while (chunkIndex < ends.length - 1 && ends[chunkIndex]! <= offset) chunkIndex++;
    return chunks[chunkIndex]?.at ?? 0;
  };
  const out: TerminalSignal[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === BEL) {
      out.push({ kind: 'bel', at: timeAt(i) });
      i++;
      continue;
    }
    if (ch !== ESC || i + 1 >= text.length) {
      i++;
      continue;
    }
    const next = text[i + 1]!;
    if (next === ']') {
      const { end, body } = stringUntilTerminator(text, i + 2, true);
      const semi = body.indexOf(';');
      const code = semi < 0 ? body : body.slice(0, semi);
      const payload = semi < 0 ? '' : body.slice(semi + 1);
      out.push({ kind: 'osc', at: timeAt(end - 1), code, payload: payload.slice(0, MAX_OSC_PAYLOAD_CHARS) });
      i = end;
    } else if (next === 'P' || next === 'X' || next === '^' || next === '_') {
      // DCS / SOS / PM / APC: skipped whole (kitty graphics, tmux passthrough); a BEL inside is not a bell.
      i = stringUntilTerminator(text, i + 2, false).end;
    } else if (next === '[') {
      let j = i + 2;
      while (j < text.length && !(text.charCodeAt(j) >= 0x40 && text.charCodeAt(j) <= 0x7e)) j++;
      const params = text.slice(i + 2, j);
      const final = text[j] ?? '';
      const at = timeAt(j);
      if ((final === 'h' || final === 'l') && params.startsWith('?')) {
        for (const m of params.slice(1).split(';')) {
          const mode = Number(m);
          if (Number.isInteger(mode) && m !== '') out.push({ kind: 'mode', at, mode, set: final === 'h' });
        }
      } else {
        const name = CSI_QUERIES[params + final];
        if (name !== undefined) out.push({ kind: 'query', at, query: name });
      }
      i = j + 1;
    } else {
      i += 2;
    }
  }
  return out;
}

/** The body of an OSC (ends at BEL when `belEnds`, or ESC \) or other string; `end` is past the terminator. */
function stringUntilTerminator(text: string, start: number, belEnds: boolean): { end: number; body: string } {
  for (let j = start; j < text.length; j++) {
    if (belEnds && text[j] === BEL) return { end: j + 1, body: text.slice(start, j) };
    if (text[j] === ESC && text[j + 1] === '\\') return { end: j + 2, body: text.slice(start, j) };
  }
  return { end: text.length, body: text.slice(start) };
}

/**
 * Whether a signal asks for attention the way alert-spec's terminal reports do: a BEL, a notification
 * (OSC 9 other than 9;4 progress, OSC 99 other than its `p=?` capability query, OSC 777 `notify`), or Codex's
 * OSC 7501 `state=blocked…` / `state=done…`. Titles, colour queries and 7501's working / idle states are not.
 */
export function isAlert(s: TerminalSignal): boolean {
  if (s.kind === 'bel') return true;
  if (s.kind !== 'osc') return false;
  switch (s.code) {
    case '9':
      return !s.payload.startsWith('4;');
    case '99':
      return !/(^|:)p=\?/.test(s.payload.split(';')[0] ?? '');
    case '777':
      return s.payload.startsWith('notify;');
    case '7501':
      return /^state=(blocked|done)\b/.test(s.payload);
    default:
      return false;
  }
}

/**
 * A title with its animation taken out, so a table lists its forms rather than every frame: a leading braille
 * spinner frame becomes `⠿`, trailing padding goes.
 */
export function titleForm(title: string): string {
  return title.replace(/^[\u2800-\u28ff](?= )/, '⠿').trimEnd();
}

/** What a window of signals amounts to, for the README's table and the test's report. */
export interface SignalSummary {
  readonly bels: number;
  /** Title forms set (OSC 0 / 1 / 2, see {@link titleForm}), each once, in first-seen order. */
  readonly titles: readonly string[];
  /** Non-title OSC strings (notifications, 7501, queries), in order, as `code;payload`. */
  readonly osc: readonly string[];
  /** Private modes set (`?1004h`) and reset (`?1004l`), each listed once, in first-seen order. */
  readonly modes: readonly string[];
  readonly queries: readonly string[];
}

const TITLE_CODES = new Set(['0', '1', '2']);

export function summarize(signals: readonly TerminalSignal[]): SignalSummary {
  const titles: string[] = [];
  const osc: string[] = [];
  const modes: string[] = [];
  const queries: string[] = [];
  let bels = 0;
  for (const s of signals) {
    if (s.kind === 'bel') bels++;
    else if (s.kind === 'osc' && TITLE_CODES.has(s.code)) {
      const form = titleForm(s.payload);
      if (!titles.includes(form)) titles.push(form);
    } else if (s.kind === 'osc') {
      const entry = `${s.code};${s.payload}`;
      if (osc.at(-1) !== entry) osc.push(entry);
    } else if (s.kind === 'mode') {
      const entry = `?${s.mode}${s.set ? 'h' : 'l'}`;
      if (!modes.includes(entry)) modes.push(entry);
    } else if (!queries.includes(s.query)) queries.push(s.query);
  }
  return { bels, titles, osc, modes, queries };
}

/** Signals with `from <= at < to`. */
export function between(
  signals: readonly TerminalSignal[],
  from: number,
  to = Number.POSITIVE_INFINITY,
): TerminalSignal[] {
  return signals.filter((s) => s.at >= from && s.at < to);
}
