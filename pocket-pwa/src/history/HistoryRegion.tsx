/**
 * The older-history region above the terminal (issue 5): the pager's pages as plain text nodes (never HTML),
 * one `<pre>` per page with `content-visibility: auto` so only pages near the view are laid out. It opens
 * scrolled to its bottom — the line just before xterm's first — and, when pages are prepended, keeps the
 * lines the user is looking at in place. Reaching its top asks for the next older page.
 */
import './history.css';
import { useLayoutEffect, useRef } from 'react';
import type { PagerState } from './history-pager.js';

/** Pixels from the region's top at which the next page is asked for, so it arrives before the edge. */
const NEAR_TOP_PX = 400;

export interface HistoryRegionProps {
  readonly pager: PagerState;
  onNearTop(): void;
  onClose(): void;
}

const STATUS_TEXT: Record<PagerState['status'], string | null> = {
  idle: null,
  loading: 'loading older lines…',
  start: 'start of history',
  limit: 'older lines are not kept on this phone',
  error: 'older lines could not be loaded — scroll up to try again',
};

export function HistoryRegion({ pager, onNearTop, onClose }: HistoryRegionProps) {
  const scroller = useRef<HTMLDivElement>(null);
  const shown = useRef<{ epoch: number; oldest: number; height: number } | null>(null);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (el === null) return;
    const before = shown.current;
    if (before === null || before.epoch !== pager.epoch) el.scrollTop = el.scrollHeight;
    else if (pager.oldestLine < before.oldest) el.scrollTop += el.scrollHeight - before.height;
    shown.current = { epoch: pager.epoch, oldest: pager.oldestLine, height: el.scrollHeight };
  }, [pager]);

  const status = STATUS_TEXT[pager.status];
  return (
    <section className="history-region" aria-label="Older lines">
      <div
        className="history-scroll"
        ref={scroller}
        data-oldest-line={pager.oldestLine}
        onScroll={(e) => {
          if (e.currentTarget.scrollTop < NEAR_TOP_PX) onNearTop();
        }}
      >
        {status !== null && (
          <p className="history-status" role="status">
            {status}
          </p>
        )}
        {pager.chunks.map((c) => (
          <pre key={c.firstLine} className="history-page" data-first-line={c.firstLine}>
            {c.lines.join('\n')}
          </pre>
        ))}
      </div>
      <button type="button" className="history-close" onClick={onClose} aria-label="Hide older lines">
        Live ↓
      </button>
    </section>
  );
}
