import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  HISTORY_PAGE_LINES,
  HistoryPageError,
  MAX_KEPT_HISTORY_LINES,
  type PageAnswer,
  type PagerState,
  pageArrived,
  pageFailed,
  pageLines,
  requestOlder,
  resetPager,
} from './history-pager.js';

/** What a Burrow holding lines 0 … end−1 ("line N") answers (api-connection.ts: lines joined by CRLF). */
const burrowAnswer = (beforeLine: number, maxLines: number): PageAnswer => {
  const firstLine = Math.max(0, beforeLine - maxLines);
  const lines = Array.from({ length: beforeLine - firstLine }, (_, i) => `line ${firstLine + i}`);
  return { firstLine, endLine: beforeLine, hasOlder: firstLine > 0, data: lines.join('\r\n') };
};

const allLines = (s: PagerState) => s.chunks.flatMap((c) => c.lines);

describe('history pager', () => {
  it('asks before the snapshot first line, one request at a time', () => {
    const s0 = resetPager(null, 3000, true);
    const { state: s1, request } = requestOlder(s0);
    expect(request).toEqual({ epoch: s0.epoch, beforeLine: 3000, maxLines: HISTORY_PAGE_LINES });
    expect(s1.status).toBe('loading');
    expect(requestOlder(s1).request).toBeNull();
  });

  it('pages back to line 0 contiguously, then says start of history', () => {
    let s = resetPager(null, 1234, true);
    for (;;) {
      const { state, request } = requestOlder(s);
      if (request === null) break;
      s = pageArrived(state, request, burrowAnswer(request.beforeLine, request.maxLines));
    }
    expect(s.status).toBe('start');
    expect(s.oldestLine).toBe(0);
    expect(allLines(s)).toEqual(Array.from({ length: 1234 }, (_, i) => `line ${i}`));
    expect(s.keptLines).toBe(1234);
  });

  it('a snapshot without older lines starts at the start', () => {
    expect(resetPager(null, 40, false).status).toBe('start');
    expect(resetPager(null, 0, true).status).toBe('start');
    expect(requestOlder(resetPager(null, 40, false)).request).toBeNull();
  });

  it('drops answers for an earlier snapshot (resync / re-attach)', () => {
    const { state, request } = requestOlder(resetPager(null, 900, true));
    const fresh = resetPager(state, 950, true);
    expect(fresh.epoch).toBe(state.epoch + 1);
    expect(pageArrived(fresh, request!, burrowAnswer(900, 500))).toBe(fresh);
    expect(pageFailed(fresh, request!)).toBe(fresh);
  });

  it('cuts lines it already holds when an answer overlaps', () => {
    const { state, request } = requestOlder(resetPager(null, 1000, true));
    const overlapping = burrowAnswer(1010, 510); // 500 … 1009: 1000 … 1009 are xterm's
    const s = pageArrived(state, request!, overlapping);
    expect(s.oldestLine).toBe(500);
    expect(allLines(s).at(-1)).toBe('line 999');
    expect(s.keptLines).toBe(500);
  });

  it('a gap, a malformed page or a failure is an error, and the next scroll retries', () => {
    const { state, request } = requestOlder(resetPager(null, 1000, true));
    expect(pageArrived(state, request!, burrowAnswer(990, 500)).status).toBe('error');
    const bad = { firstLine: 500, endLine: 1000, hasOlder: true, data: 'one\r\ntwo' };
    expect(pageArrived(state, request!, bad).status).toBe('error');
    const failed = pageFailed(state, request!);
    expect(failed.status).toBe('error');
    expect(requestOlder(failed).request?.beforeLine).toBe(1000);
  });

  it('stops at MAX_KEPT_HISTORY_LINES', () => {
    let s = resetPager(null, MAX_KEPT_HISTORY_LINES * 2, true);
    let requests = 0;
    for (;;) {
      const { state, request } = requestOlder(s);
      s = state;
      if (request === null) break;
      requests++;
      s = pageArrived(s, request, burrowAnswer(request.beforeLine, request.maxLines));
    }
    expect(s.status).toBe('limit');
    expect(s.keptLines).toBe(MAX_KEPT_HISTORY_LINES);
    expect(requests).toBe(MAX_KEPT_HISTORY_LINES / HISTORY_PAGE_LINES);
  });

  it('renders plain text: escape sequences and controls are removed', () => {
    const page = {
      firstLine: 0,
      endLine: 2,
      hasOlder: false,
      data: '\x1b[31mred\x1b[0m\r\n\x07bell\x1b]0;t\x07',
    };
    expect(pageLines(page)).toEqual(['red', 'bell']);
  });

  it('rejects a bad snapshot line', () => {
    expect(() => resetPager(null, -1, true)).toThrow(RangeError);
    expect(() => resetPager(null, 1.5, true)).toThrow(RangeError);
  });

  it('random answers never throw and never break contiguity or bounds', () => {
    const answer = fc.record({
      firstLine: fc.nat(5000),
      span: fc.nat(600),
      hasOlder: fc.boolean(),
      data: fc.string({ maxLength: 200 }),
    });
    fc.assert(
      fc.property(fc.nat(5000), fc.array(answer, { maxLength: 12 }), (first, answers) => {
        let s = resetPager(null, first, true);
        for (const a of answers) {
          const { state, request } = requestOlder(s);
          s = state;
          if (request === null) break;
          const page = {
            firstLine: a.firstLine,
            endLine: a.firstLine + a.span,
            hasOlder: a.hasOlder,
            data: a.data,
          };
          try {
            s = pageArrived(s, request, page);
          } catch (e) {
            if (!(e instanceof HistoryPageError)) throw e;
          }
          let line = s.oldestLine;
          for (const c of s.chunks) {
            expect(c.firstLine).toBe(line);
            line += c.lines.length;
          }
          expect(line).toBe(first);
          expect(s.keptLines).toBeLessThanOrEqual(MAX_KEPT_HISTORY_LINES);
        }
      }),
      { seed: 5, numRuns: 300 },
    );
  });
});
