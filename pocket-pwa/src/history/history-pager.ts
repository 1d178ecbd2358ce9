/**
 * Older history above the terminal (issue 5 "pages older history in on scroll"; protocol SPEC R-ATTACH-5):
 * a pure state machine over the pages fetched with `history { beforeLine, maxLines }`. The snapshot says where
 * xterm's buffer starts (`firstLine`) and whether anything older exists (`hasOlder`); each page is asked for
 * before the oldest line held, one request at a time, and kept oldest first. An answer that belongs to an
 * earlier snapshot (resync / re-attach bumps `epoch`) is dropped, and lines that overlap what is held are cut,
 * so the region and xterm's scrollback never show a line twice.
 */

/** Lines asked for per request (protocol bound: 1 … MAX_HISTORY_LINES). */
export const HISTORY_PAGE_LINES = 500;
/** Lines the phone keeps above the terminal; past this it stops fetching and says so. */
export const MAX_KEPT_HISTORY_LINES = 20_000;

export class HistoryPageError extends Error {
  override name = 'HistoryPageError';
}

export interface HistoryChunk {
  /** Absolute number of `lines[0]`. */
  readonly firstLine: number;
  readonly lines: readonly string[];
}

export type PagerStatus = 'idle' | 'loading' | 'start' | 'limit' | 'error';

export interface PagerState {
  /** Bumped by every reset, so answers for an older snapshot are recognised and dropped. */
  readonly epoch: number;
  /** Pages held, oldest first; contiguous, the last ending at the snapshot's `firstLine`. */
  readonly chunks: readonly HistoryChunk[];
  /** Oldest absolute line held (the snapshot's `firstLine` while no page is held). */
  readonly oldestLine: number;
  readonly keptLines: number;
  readonly hasOlder: boolean;
  readonly status: PagerStatus;
}

export interface PageRequest {
  readonly epoch: number;
  readonly beforeLine: number;
  readonly maxLines: number;
}

export interface PageAnswer {
  readonly firstLine: number;
  readonly endLine: number;
  readonly hasOlder: boolean;
  readonly data: string;
}

const checkLine = (n: number, what: string) => {
  if (!Number.isSafeInteger(n) || n < 0) throw new RangeError(`${what} must be a non-negative integer`);
};

const settled = (hasOlder: boolean, oldestLine: number): PagerStatus =>
  hasOlder && oldestLine > 0 ? 'idle' : 'start';

/** A fresh pager for a snapshot (attach or resync): nothing held, older lines before `firstLine`. */
export function resetPager(previous: PagerState | null, firstLine: number, hasOlder: boolean): PagerState {
  checkLine(firstLine, 'firstLine');
  return {
    epoch: (previous?.epoch ?? 0) + 1,
    chunks: [],
    oldestLine: firstLine,
    keptLines: 0,
    hasOlder,
    status: settled(hasOlder, firstLine),
  };
}

/**
 * The user reached the top: the next request, or null when one is already in flight, nothing older exists,
 * or the kept bound is reached. An `error` state asks again (the user's next scroll is the retry).
 */
export function requestOlder(state: PagerState): { state: PagerState; request: PageRequest | null } {
  if (state.status === 'loading' || state.status === 'start') return { state, request: null };
  const room = MAX_KEPT_HISTORY_LINES - state.keptLines;
  if (room <= 0) return { state: { ...state, status: 'limit' }, request: null };
  const request = {
    epoch: state.epoch,
    beforeLine: state.oldestLine,
    maxLines: Math.min(HISTORY_PAGE_LINES, room, state.oldestLine),
  };
  return { state: { ...state, status: 'loading' }, request };
}

/** Plain text only: SGR and other escape sequences, and C0 controls but tab, are removed. */
const ESCAPES = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-_])|[\x00-\x08\x0b-\x1f\x7f]/g;

/** Splits a page's text into its lines; throws HistoryPageError when the count does not match its range. */
export function pageLines(answer: PageAnswer): string[] {
  const count = answer.endLine - answer.firstLine;
  if (count < 0) throw new HistoryPageError('a page ends before it starts');
  if (count === 0) return [];
  const lines = answer.data.split(/\r?\n/).map((l) => l.replace(ESCAPES, ''));
  if (lines.length !== count) {
    throw new HistoryPageError(`a page of ${count} lines carried ${lines.length}`);
  }
  return lines;
}

/** An answer arrived for `request`. Stale answers (earlier snapshot) leave the state as it is. */
export function pageArrived(state: PagerState, request: PageRequest, answer: PageAnswer): PagerState {
  if (request.epoch !== state.epoch || state.status !== 'loading') return state;
  let lines: string[];
  try {
    lines = pageLines(answer);
  } catch (e) {
    if (e instanceof HistoryPageError) return { ...state, status: 'error' };
    throw e;
  }
  // A gap means the lines in between are gone from the Burrow: stop rather than show a seam.
  if (answer.endLine < state.oldestLine) return { ...state, status: 'error' };
  // Overlap (the Burrow answered up to or past what is held): keep only the lines not yet held.
  const keep = lines.slice(0, Math.max(0, state.oldestLine - answer.firstLine));
  if (keep.length === 0) {
    return { ...state, hasOlder: answer.hasOlder, status: settled(answer.hasOlder, state.oldestLine) };
  }
  const oldestLine = answer.firstLine;
  return {
    ...state,
    chunks: [{ firstLine: oldestLine, lines: keep }, ...state.chunks],
    oldestLine,
    keptLines: state.keptLines + keep.length,
    hasOlder: answer.hasOlder,
    status: settled(answer.hasOlder, oldestLine),
  };
}

/** The request failed (connection lost, Burrow error): the next scroll to the top asks again. */
export function pageFailed(state: PagerState, request: PageRequest): PagerState {
  if (request.epoch !== state.epoch || state.status !== 'loading') return state;
  return { ...state, status: 'error' };
}
