/**
 * The terminal's font and an estimate of how many cells fit a screen, used before xterm has measured (e.g. the
 * size a new session starts at). The terminal view replaces it with the fit addon's measurement.
 */
import { MAX_TERMINAL_COLS, MAX_TERMINAL_ROWS } from '@burrow/protocol';

export const TERMINAL_FONT_SIZE_PX = 13;
export const TERMINAL_FONT_FAMILY =
  'ui-monospace, "SF Mono", Menlo, "DejaVu Sans Mono", "Noto Sans Mono", monospace';
/** Typical advance and line height of a monospace font at TERMINAL_FONT_SIZE_PX. */
const CELL_WIDTH_PX = 7.8;
const CELL_HEIGHT_PX = 16;
/** Space the key bar, composition input and header take below / above the terminal. */
const CHROME_HEIGHT_PX = 150;
const MIN_COLS = 20;
const MIN_ROWS = 5;

export function estimateTerminalSize(widthPx: number, heightPx: number): { cols: number; rows: number } {
  const cols = Math.floor(widthPx / CELL_WIDTH_PX);
  const rows = Math.floor((heightPx - CHROME_HEIGHT_PX) / CELL_HEIGHT_PX);
  return {
    cols: Math.min(MAX_TERMINAL_COLS, Math.max(MIN_COLS, Number.isFinite(cols) ? cols : MIN_COLS)),
    rows: Math.min(MAX_TERMINAL_ROWS, Math.max(MIN_ROWS, Number.isFinite(rows) ? rows : MIN_ROWS)),
  };
}
