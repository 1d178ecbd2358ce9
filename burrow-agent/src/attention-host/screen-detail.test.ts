/**
 * Issue 23: a ring without words of its own takes the prompt-like lines around the cursor from the rendered
 * screen. Screens here are laid out the way the agents draw them (boxes, menus, cursor moves, the alternate
 * screen), rendered by a real ScreenModel and read back through its snapshot, as the host does.
 */
import { describe, expect, it } from 'vitest';
import { ScreenModel } from '../screen/screen-model.js';
import { MAX_CONTEXT_CHARS, promptContext, readScreenText } from './screen-detail.js';

async function render(bytes: string, cols = 80, rows = 24) {
  const model = new ScreenModel(cols, rows);
  model.write(new TextEncoder().encode(bytes));
  const text = await readScreenText(await model.snapshot());
  model.dispose();
  return text;
}

/** Rows of text placed at absolute positions with CUP, the way a TUI paints a frame. */
function painted(
  rows: ReadonlyArray<readonly [number, string]>,
  cursor: [number, number],
  alt = true,
): string {
  let out = alt ? '\x1b[?1049h\x1b[2J' : '';
  for (const [row, text] of rows) out += `\x1b[${row};1H${text}`;
  return `${out}\x1b[${cursor[0]};${cursor[1]}H`;
}

describe('promptContext over rendered screens', () => {
  it("Claude Code's permission prompt: the request and the question, not the menu", async () => {
    const screen = await render(
      painted(
        [
          [8, '╭──────────────────────────────────────────────╮'],
          [9, '│ Bash command                                 │'],
          [10, '│                                              │'],
          [11, '│   touch approved.txt                         │'],
          [12, '│   Create an empty file                       │'],
          [13, '│                                              │'],
          [14, '│ Do you want to proceed?                      │'],
          [15, '│ ❯ 1. Yes                                     │'],
          [16, "│   2. Yes, and don't ask again for touch      │"],
          [17, '│   3. No, and tell Claude what to do (esc)    │'],
          [18, '╰──────────────────────────────────────────────╯'],
        ],
        [15, 3],
        false,
      ),
    );
    expect(promptContext(screen)).toBe('touch approved.txt · Create an empty file · Do you want to proceed?');
  });

  it("Codex's approval: the question above the command", async () => {
    const screen = await render(
      painted(
        [
          [10, '  Would you like to run the following command?'],
          [12, '  $ touch approved.txt'],
          [14, '› 1. Yes, proceed (y)'],
          [15, "  2. Yes, and don't ask again for this command (a)"],
          [16, '  3. No, and tell Codex what to do differently (esc)'],
          [18, '  Press enter to confirm or esc to cancel'],
        ],
        [14, 1],
      ),
    );
    expect(promptContext(screen)).toBe('Would you like to run the following command? · $ touch approved.txt');
  });

  it("Gemini CLI's confirmation box", async () => {
    const screen = await render(
      painted(
        [
          [5, '╭───────────────────────────────────────────────────╮'],
          [6, '│ ?  Shell touch approved.txt                        │'],
          [7, '│                                                   │'],
          [8, '│ touch approved.txt                                │'],
          [9, '│                                                   │'],
          [10, "│ Allow execution of: 'touch'?                       │"],
          [11, '│                                                   │'],
          [12, '│ ● 1. Yes, allow once                              │'],
          [13, '│   2. Yes, allow always ...                        │'],
          [14, '│   3. No, suggest changes (esc)                    │'],
          [15, '╰───────────────────────────────────────────────────╯'],
        ],
        [20, 1],
      ),
    );
    expect(promptContext(screen)).toBe(
      "? Shell touch approved.txt · touch approved.txt · Allow execution of: 'touch'?",
    );
  });

  it("a plain program's question at the cursor, and a failed command's last words", async () => {
    const ask = await render('Deleting 3 files.\r\nContinue? [y/N] ');
    expect(promptContext(ask)).toBe('Deleting 3 files. · Continue? [y/N]');
    const failed = await render('make: *** [build] Error 2\r\nnpm ERR! missing script: build\r\n');
    expect(promptContext(failed)).toBe('make: *** [build] Error 2 · npm ERR! missing script: build');
  });

  it('has nothing to say for an empty or wordless screen', async () => {
    expect(promptContext(await render(''))).toBeNull();
    expect(promptContext(await render('──── ╭╮ ────\r\n > '))).toBeNull();
  });

  it('sanitizes and bounds what it keeps', () => {
    const long = 'x'.repeat(300);
    const text = promptContext({ lines: [long, `why\u202e?`], cursorRow: 1 })!;
    expect(Array.from(text)).toHaveLength(MAX_CONTEXT_CHARS);
    expect(text.endsWith('…')).toBe(true);
    expect(text).not.toContain('\u202e');
  });
});
