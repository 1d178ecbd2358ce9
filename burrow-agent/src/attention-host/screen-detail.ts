/**
 * Words for a ring that has none of its own (issue 23: "every ring says something useful"; attention README
 * "Choices"): the prompt-like lines around the cursor on the session's rendered screen. Agents lay prompts out
 * with cursor moves and boxes, so the byte stream never holds the question in order (agent-signals.md): the
 * screen is read from the session's screen model (its public snapshot), rendered into a scratch headless
 * terminal, and picked over here.
 *
 * Which lines: the question nearest the cursor — a line ending in `?`, or naming an approval (allow, approve,
 * proceed, confirm, permission, `[y/N]`) — and the closest content lines beside it, at most MAX_CONTEXT_LINES
 * in screen order. Menu choices (`1. Yes`, `❯ 2. No`), key hints (`esc to cancel`) and box borders are not
 * content. Without a question, the last lines at or above the cursor: a shell prompt, a command's last words.
 * The text is sanitized like any report and bounded to MAX_CONTEXT_CHARS.
 */
import { sanitizeText } from '@burrow/crypto';
import xtermHeadless from '@xterm/headless';
import type { ScreenSnapshot } from '../screen/screen-model.js';

const { Terminal } = xtermHeadless;

/** At most this many lines of screen go into a ring's detail. */
export const MAX_CONTEXT_LINES = 3;
/** At most this many characters (code points) of them, joined. */
export const MAX_CONTEXT_CHARS = 200;
/** Lines joined with this. */
export const CONTEXT_LINE_SEPARATOR = ' · ';
/** How far from the question (in rows) its companion lines may be. */
const NEIGHBOURHOOD_ROWS = 6;

/** The visible screen as plain text rows, and the cursor's row in them. */
export interface ScreenText {
  readonly lines: readonly string[];
  readonly cursorRow: number;
}

/**
 * Renders a snapshot into a scratch terminal of its size and reads the visible rows. Only the viewport is
 * kept (scrollback 0): what the owner would see on the screen right now.
 */
export function readScreenText(snapshot: ScreenSnapshot): Promise<ScreenText> {
  const term = new Terminal({
    cols: snapshot.cols,
    rows: snapshot.rows,
    scrollback: 0,
    allowProposedApi: true,
  });
  return new Promise<ScreenText>((resolve, reject) => {
    try {
      term.write(snapshot.data, () => {
        try {
          const buffer = term.buffer.active;
          const lines: string[] = [];
          for (let y = 0; y < snapshot.rows; y++) {
            lines.push(buffer.getLine(buffer.viewportY + y)?.translateToString(true) ?? '');
          }
          resolve({ lines, cursorRow: buffer.cursorY });
        } catch (err) {
          reject(err);
        } finally {
          term.dispose();
        }
      });
    } catch (err) {
      term.dispose();
      reject(err);
    }
  });
}

/** Box drawing and block elements (U+2500–U+259F): borders and shading, never words. */
const BOX = /[\u2500-\u259f]/gu;
/** A menu choice: an optional selection marker, then `1.` / `2)` and words. */
const CHOICE = /^(?:[›❯>▶▸●○◉◯*•-]\s*)?\(?\d{1,2}[.)]\s/u;
/** A selection marker or an input line's prompt leading a line (`❯ Yes`, `> Type your message`). */
const SELECTED = /^[>›❯▶▸]\s/u;
/** A key hint: "esc to cancel", "Enter to confirm", "? for shortcuts", a key binding ("ctrl+f fullscreen"). */
const KEY_HINT =
  /\b(?:esc|enter|tab|ctrl\+\w|shift\+\w)\b[^.?!]{0,24}\b(?:to|for)\b|^\?\s+for\b|\b(?:ctrl|alt|shift|cmd)\+\w/iu;
/** A line that asks: ends in `?` (quotes or brackets after it allowed), or names an approval. */
const ASKS =
  /\?\s*["'’”)\]]*\s*$|\b(?:allow|approve|proceed|confirm|permission|continue)\b|\[y\/n\]|\(y\/n\)|\by\/n\b/iu;
/** Something to read: a letter or a digit. */
const WORDY = /[\p{L}\p{N}]/u;

function clean(line: string): string {
  return line.replace(BOX, ' ').replace(/\s+/g, ' ').trim();
}

interface Row {
  readonly y: number;
  readonly text: string;
}

/**
 * The prompt-like lines around the cursor, joined and bounded, or null when the screen has nothing to say.
 * Pure, for any screen text.
 */
export function promptContext(screen: ScreenText): string | null {
  const rows: Row[] = [];
  screen.lines.forEach((line, y) => {
    const text = clean(line);
    if (WORDY.test(text)) rows.push({ y, text });
  });
  const content = rows.filter(
    (r) => !CHOICE.test(r.text) && !SELECTED.test(r.text) && !KEY_HINT.test(r.text),
  );
  if (content.length === 0) return null;
  const cursor = Math.max(0, Math.min(screen.cursorRow, screen.lines.length - 1));
  // Distance to the cursor; a row below it counts a little further (prompts sit above their input line).
  const distance = (r: Row) => (r.y <= cursor ? cursor - r.y : (r.y - cursor) * 1.5);
  const questions = content.filter((r) => ASKS.test(r.text));
  let anchor: Row;
  if (questions.length > 0) {
    anchor = questions.reduce((best, r) => (distance(r) < distance(best) ? r : best));
  } else {
    const above = content.filter((r) => r.y <= cursor);
    anchor = above.length > 0 ? above[above.length - 1]! : content[content.length - 1]!;
  }
  const picked = [anchor];
  // Companions: the closest content rows to the anchor (above first on a tie); without a question, only
  // rows above it (the last words of output lead up to the cursor).
  const companions = content
    .filter((r) => r !== anchor && Math.abs(r.y - anchor.y) <= NEIGHBOURHOOD_ROWS)
    .filter((r) => questions.length > 0 || r.y < anchor.y)
    .sort((a, b) => Math.abs(a.y - anchor.y) - Math.abs(b.y - anchor.y) || a.y - b.y);
  for (const r of companions) {
    if (picked.length >= MAX_CONTEXT_LINES) break;
    picked.push(r);
  }
  picked.sort((a, b) => a.y - b.y);
  const joined = picked.map((r) => r.text).join(CONTEXT_LINE_SEPARATOR);
  const text = boundedText(joined);
  return text === '' ? null : text;
}

/** Sanitized (controls, bidi and zero-width formatting gone) and cut to MAX_CONTEXT_CHARS with an ellipsis. */
function boundedText(text: string): string {
  const clean = sanitizeText(text, MAX_CONTEXT_CHARS + 1);
  const chars = Array.from(clean);
  return chars.length <= MAX_CONTEXT_CHARS ? clean : `${chars.slice(0, MAX_CONTEXT_CHARS - 1).join('')}…`;
}
