/**
 * The terminal view (issue 5 "Terminal view"; DESIGN §7): xterm.js attached to one session. The attach answer
 * paints the session's current screen at once; live output follows from its offset, and the core re-attaches
 * from the last offset after a reconnect. Lazy-loaded: xterm is most of the app's JS.
 *
 * Size (protocol R-SIZE-*): xterm always has the PTY's size, set only by the Burrow (snapshots and
 * `size-changed`, in stream order), so the grid is never re-wrapped. The phone asks for the size its screen
 * fits (attach, `resize` on rotation, `fit` for "Fit"), computed without resizing xterm (stable-fit.ts). A PTY
 * larger than the screen is panned (pan.ts: drag, wheel, and following the cursor); a line under the header
 * says who holds the size while it is not this phone.
 */
import '@xterm/xterm/css/xterm.css';
import { ErrorCode, MAX_HISTORY_LINES, type SessionEntry } from '@burrow/protocol';
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { PairedBurrow } from '../app/burrow-hub.js';
import type { SizeAuthorityInfo, TerminalLink } from '../app/connection-port.js';
import { HistoryRegion } from '../history/HistoryRegion.js';
import {
  type PagerState,
  pageArrived,
  pageFailed,
  requestOlder,
  resetPager,
} from '../history/history-pager.js';
import { CompositionInput } from './CompositionInput.js';
import { bridgeTerminalStyles } from './csp-style-bridge.js';
import { type GoneHow, goneHow, goneText } from './gone-session.js';
import { InputRouter } from './input-router.js';
import { KeyBar } from './KeyBar.js';
import { follow, NO_PAN, type Pan, panBounds, panBy } from './pan.js';
import { ResumedLine } from './ResumedLine.js';
import { type Cells, fitTerminal, proposeScreen, type ScreenMetrics } from './stable-fit.js';
import { NO_MODIFIERS } from './sticky-modifiers.js';
import { TERMINAL_FONT_FAMILY, TERMINAL_FONT_SIZE_PX } from './terminal-metrics.js';
import { applySessionWidths } from './terminal-widths.js';
import { useVisualViewport } from './use-visual-viewport.js';

/**
 * Lines xterm keeps locally: what a refilled snapshot brings (protocol R-ATTACH-8: up to MAX_HISTORY_LINES
 * older lines, then the snapshot's own few hundred and the screen), so writing one never trims its top.
 */
const LOCAL_SCROLLBACK_LINES = MAX_HISTORY_LINES + 1000;
/** A drag shorter than this (px) has not chosen its direction yet. */
const DRAG_SLOP_PX = 6;
/** Resizes (rotation, keyboard) settle before the PTY is told, so a program redraws once. */
const RESIZE_SETTLE_MS = 150;

/** How long a refused paste's words stay on screen (ms). */
const REFUSAL_SHOWN_MS = 10_000;
export interface TerminalScreenProps {
  readonly burrow: PairedBurrow;
  readonly sessionId: string;
  readonly online: boolean;
  onBack(): void;
}

const encoder = new TextEncoder();

export default function TerminalScreen({ burrow, sessionId, online, onBack }: TerminalScreenProps) {
  useVisualViewport();
  const host = useRef<HTMLDivElement>(null);
  const termRef = useRef<Terminal | null>(null);
  const linkRef = useRef<TerminalLink | null>(null);
  const fitRef = useRef<FitAddon | null>(null);
  const routerRef = useRef<InputRouter | null>(null);
  const [modifiers, setModifiers] = useState(NO_MODIFIERS);
  const [painted, setPainted] = useState(false);
  /** Snapshots painted so far (the attach's, then each resync or re-attach that could not resume). */
  const [snapshots, setSnapshots] = useState(0);
  const [selectText, setSelectText] = useState<string | null>(null);
  const [pager, setPager] = useState<PagerState | null>(null);
  const [historyOpen, setHistoryOpen] = useState(false);
  const pagerRef = useRef<PagerState | null>(null);
  const historyOpenRef = useRef(false);
  const selectionRef = useRef<HTMLPreElement>(null);
  const [selectionBox, setSelectionBox] = useState<{ top: number; height: number } | null>(null);
  const conn = burrow.connection;
  const entry = conn.sessions.get(sessionId);
  // The last entry seen, so a session that leaves the directory keeps its name and says how it went.
  const lastEntry = useRef<SessionEntry | undefined>(entry);
  if (entry !== undefined) lastEntry.current = entry;
  const [gone, setGone] = useState<GoneHow | null>(null);
  /** A paste the core refused before sending any of it (too large, issue 24.8): its words, for a while. */
  const [refusal, setRefusal] = useState<string | null>(null);
  const goneRef = useRef(false);
  goneRef.current = gone !== null;
  /** The PTY's size and who holds it (R-SIZE-8), and whether the grid overflows the screen. */
  const [sizeInfo, setSizeInfo] = useState<(SizeAuthorityInfo & Cells) | null>(null);
  const [overflow, setOverflow] = useState(false);
  /** The size this phone's screen fits, as last asked of the Burrow. */
  const proposalRef = useRef<Cells | null>(null);
  const proposeRef = useRef<(() => Cells | null) | null>(null);

  // The directory is the truth once it has arrived (R-ATTACH-7: a removed session gets no more output). A
  // session this screen has seen and the directory no longer holds is gone; one never seen is judged missing
  // only when the Burrow refuses to attach it (a session just created may reach the directory after it opens).
  useEffect(() => {
    const judge = (refused: boolean) => {
      const now = conn.sessions.get(sessionId);
      if (now !== undefined) {
        lastEntry.current = now;
        setGone(null);
      } else if (lastEntry.current !== undefined || refused) setGone(goneHow(lastEntry.current));
    };
    if (conn.status.kind === 'connected') judge(false);
    return conn.subscribe((e) => {
      if (e.type === 'directory') judge(false);
      else if (e.type === 'error' && e.code === ErrorCode.UNKNOWN_SESSION) judge(true);
      else if (e.type === 'error' && e.code === ErrorCode.PAYLOAD_TOO_LARGE) setRefusal(e.message);
    });
  }, [conn, sessionId]);
  useEffect(() => {
    if (refusal === null) return;
    const timer = setTimeout(() => setRefusal(null), REFUSAL_SHOWN_MS);
    return () => clearTimeout(timer);
  }, [refusal]);

  const updatePager = useCallback((next: PagerState) => {
    pagerRef.current = next;
    setPager(next);
  }, []);
  const openHistory = useCallback((open: boolean) => {
    historyOpenRef.current = open;
    setHistoryOpen(open);
  }, []);
  /** Asks for the next older page when the pager allows (one in flight, bounds: history-pager.ts). */
  const askOlder = useCallback(() => {
    const current = pagerRef.current;
    const link = linkRef.current;
    if (current === null || link?.history === undefined) return;
    const { state, request } = requestOlder(current);
    if (state !== current) updatePager(state);
    if (request === null) return;
    link.history(request.beforeLine, request.maxLines).then(
      (answer) => updatePager(pageArrived(pagerRef.current ?? state, request, answer)),
      () => updatePager(pageFailed(pagerRef.current ?? state, request)),
    );
  }, [updatePager]);
  /** xterm is at the top of its scrollback and the user scrolls further up: show the older lines. */
  const reachedTop = useCallback(() => {
    const p = pagerRef.current;
    if (p === null || (p.chunks.length === 0 && p.status === 'start')) return;
    if (!historyOpenRef.current) openHistory(true);
    if (p.chunks.length === 0) askOlder();
  }, [askOlder, openHistory]);

  useEffect(() => {
    const el = host.current;
    if (el === null) return;
    const term = new Terminal({
      fontFamily: TERMINAL_FONT_FAMILY,
      fontSize: TERMINAL_FONT_SIZE_PX,
      scrollback: LOCAL_SCROLLBACK_LINES,
      cursorBlink: false,
      // The session width table (terminal-widths.ts) is behind xterm's proposed API.
      allowProposedApi: true,
      theme: { background: '#0e0f13', foreground: '#e6e6e6' },
    });
    applySessionWidths(term);
    const fit = new FitAddon();
    term.loadAddon(fit);
    const unbridge = bridgeTerminalStyles(el);
    term.open(el);
    // For the screen-conformance e2e, which reads the cells and modes a viewer got (tests/e2e).
    (el as HTMLDivElement & { xterm?: Terminal }).xterm = term;
    // Before attaching, xterm may take the phone's size: it is what the attach asks for.
    fitTerminal(term, fit);
    termRef.current = term;
    fitRef.current = fit;
    proposalRef.current = { cols: term.cols, rows: term.rows };
    const propose = () => {
      const m = screenMetrics(term, el);
      return m === null ? null : proposeScreen(m, { cols: term.cols, rows: term.rows });
    };
    proposeRef.current = propose;

    // The window over a grid larger than the screen (pan.ts), applied as a transform on xterm's element.
    let pan: Pan = NO_PAN;
    const applyPan = (next: Pan) => {
      pan = next;
      const x = term.element;
      if (x) x.style.transform = next.x === 0 && next.y === 0 ? '' : `translate(${-next.x}px, ${-next.y}px)`;
      el.dataset.pan = `${next.x},${next.y}`;
      el.dataset.panMax = `${next.maxX},${next.maxY}`;
    };
    const box = () => ({ width: el.clientWidth - HOST_PADDING_X, height: el.clientHeight });
    /** The grid in CSS pixels, as xterm's renderer lays it out (its elements may be narrower than their rows). */
    const grid = () => {
      const canvas = renderDimensions(term)?.css.canvas;
      return { width: canvas?.width ?? 0, height: canvas?.height ?? 0 };
    };
    /**
     * After xterm or the box changed size: the element covers the grid, the pan stays in bounds, and after a
     * new grid (`regrid`) the cursor is in view.
     */
    const relayout = (regrid: boolean) => {
      const g = grid();
      const b = box();
      if (term.element) {
        term.element.style.width = g.width > b.width ? `${g.width}px` : '';
        term.element.style.height = g.height > b.height ? `${g.height}px` : '';
      }
      applyPan(panBounds(pan, g, b));
      if (regrid) followCursor(true);
      setOverflow(pan.maxX > 0 || pan.maxY > 0);
    };
    /**
     * Keeps the cursor in view when it moves out of the window (as tmux does), unless history is shown. Only a
     * cursor that moved (or a new grid) moves the window: where the user panned to stays put otherwise.
     */
    let followed = '';
    const followCursor = (force = false) => {
      const buf = term.buffer.active;
      const at = `${buf.cursorX},${buf.cursorY}`;
      if (at === followed && !force) return;
      followed = at;
      if (pan.maxX === 0 && pan.maxY === 0) return;
      if (buf.viewportY < buf.baseY) return;
      const g = grid();
      const w = g.width / term.cols;
      const h = g.height / term.rows;
      applyPan(follow(pan, { left: buf.cursorX * w, top: buf.cursorY * h, width: w, height: h }, box()));
    };
    let layoutFrame = 0;
    let regridPending = false;
    const relayoutSoon = (regrid = false) => {
      regridPending ||= regrid;
      cancelAnimationFrame(layoutFrame);
      layoutFrame = requestAnimationFrame(() => {
        const r = regridPending;
        regridPending = false;
        relayout(r);
      });
    };
    const onResized = term.onResize(() => relayoutSoon(true));
    const onCursor = term.onCursorMove(() => followCursor());

    const link = conn.attach(
      sessionId,
      { cols: term.cols, rows: term.rows },
      {
        onSnapshot: (s) => {
          // A new snapshot starts a new line numbering base: older pages are fetched afresh (R-ATTACH-5).
          updatePager(resetPager(pagerRef.current, s.firstLine, s.hasOlder));
          openHistory(false);
          // In stream order: output queued before it is parsed first, then the terminal starts over from it.
          term.write('', () => {
            term.reset();
            if (s.cols !== term.cols || s.rows !== term.rows) term.resize(s.cols, s.rows);
          });
          term.write(s.data, () => {
            setPainted(true);
            setSnapshots((n) => n + 1);
            relayoutSoon(true);
          });
        },
        onOutput: (bytes) => term.write(bytes),
        onSizeChanged: (cols, rows, info) => {
          // In stream order: the bytes before it were drawn at the old size, those after at this one.
          term.write('', () => {
            if (cols !== term.cols || rows !== term.rows) term.resize(cols, rows);
          });
          setSizeInfo({ cols, rows, ...info });
        },
      },
    );
    linkRef.current = link;
    // Typing into a session that is gone would go nowhere, silently: dropped here, and the screen says why.
    const router = new InputRouter(
      {
        user: (d) => {
          if (!goneRef.current) link.input(d);
        },
        reply: (d) => {
          if (!goneRef.current) link.reply(encoder.encode(d));
        },
      },
      () => term.modes.applicationCursorKeysMode,
      () => term.modes.bracketedPasteMode,
    );
    routerRef.current = router;
    const offMods = router.onModifiers(setModifiers);
    const onData = term.onData((d) => router.terminalData(d));
    const atTop = () => term.buffer.active.viewportY === 0;
    const onScroll = term.onScroll((y) => {
      if (y === 0) reachedTop();
      else if (historyOpenRef.current) openHistory(false);
    });
    // At the top xterm does not scroll, so no onScroll: an upward wheel or swipe there opens the history.
    const onWheel = (e: WheelEvent) => {
      if (e.deltaY < 0 && atTop()) reachedTop();
    };
    let touchY: number | null = null;
    const onTouchStart = (e: TouchEvent) => {
      touchY = e.touches[0]?.clientY ?? null;
    };
    const onTouchMove = (e: TouchEvent) => {
      const y = e.touches[0]?.clientY;
      if (touchY !== null && y !== undefined && y > touchY && atTop()) reachedTop();
    };
    el.addEventListener('wheel', onWheel, { passive: true });
    el.addEventListener('touchstart', onTouchStart, { passive: true });
    el.addEventListener('touchmove', onTouchMove, { passive: true });

    // Panning, ahead of xterm (capture phase): a sideways drag or wheel moves the window; a vertical one moves
    // it until the screen's edge, then is xterm's to scroll history (pan.ts).
    const scrolledBack = () => term.buffer.active.viewportY < term.buffer.active.baseY;
    let drag: { x: number; y: number; axis: 'x' | 'y' | null } | null = null;
    const onPanStart = (e: TouchEvent) => {
      const t = e.touches[0];
      drag = e.touches.length === 1 && t ? { x: t.clientX, y: t.clientY, axis: null } : null;
    };
    const onPanMove = (e: TouchEvent) => {
      const t = e.touches[0];
      if (drag === null || t === undefined || (pan.maxX === 0 && pan.maxY === 0)) return;
      const dx = t.clientX - drag.x;
      const dy = t.clientY - drag.y;
      if (drag.axis === null) {
        if (Math.abs(dx) + Math.abs(dy) < DRAG_SLOP_PX) return;
        drag.axis = Math.abs(dx) > Math.abs(dy) ? 'x' : 'y';
      }
      const r = drag.axis === 'x' ? panBy(pan, dx, 0, false) : panBy(pan, 0, dy, scrolledBack());
      drag.x = t.clientX;
      drag.y = t.clientY;
      if (drag.axis === 'x' && pan.maxX === 0) return;
      applyPan(r.pan);
      // Sideways is all the pan's. Vertically the pan keeps the move only when it took all of it: what is left
      // at the screen's edge goes on to xterm's scrolling in the same move, so a drag never stalls at the edge.
      if (drag.axis === 'x' || (r.restY === 0 && dy !== 0)) {
        e.preventDefault();
        e.stopPropagation();
      }
    };
    const onPanWheel = (e: WheelEvent) => {
      if (pan.maxX === 0 && pan.maxY === 0) return;
      const dx = e.shiftKey && e.deltaX === 0 ? e.deltaY : e.deltaX;
      const dy = e.shiftKey ? 0 : e.deltaY;
      const r = panBy(pan, -dx, -dy, scrolledBack());
      applyPan(r.pan);
      // As for drags: a turn the pan took whole stops here; one it took part of (or none) goes on to xterm.
      const took = dy === 0 ? dx !== 0 && pan.maxX > 0 : r.restY === 0;
      if (took) {
        e.preventDefault();
        e.stopPropagation();
      }
    };
    el.addEventListener('touchstart', onPanStart, { capture: true, passive: true });
    el.addEventListener('touchmove', onPanMove, { capture: true, passive: false });
    el.addEventListener('wheel', onPanWheel, { capture: true, passive: false });

    let settle: ReturnType<typeof setTimeout> | undefined;
    const observer = new ResizeObserver(() => {
      relayoutSoon();
      clearTimeout(settle);
      settle = setTimeout(() => {
        // The history region takes room from the host while open: the PTY keeps its size (the host clips).
        if (historyOpenRef.current) return;
        // The Burrow decides whether the PTY follows (R-SIZE-3: only while this phone holds the size); xterm
        // is resized when it says so.
        const next = propose();
        const last = proposalRef.current;
        if (next === null || (last !== null && last.cols === next.cols && last.rows === next.rows)) return;
        proposalRef.current = next;
        link.resize(next.cols, next.rows);
      }, RESIZE_SETTLE_MS);
    });
    observer.observe(el);

    return () => {
      clearTimeout(settle);
      cancelAnimationFrame(layoutFrame);
      observer.disconnect();
      onData.dispose();
      onScroll.dispose();
      onResized.dispose();
      onCursor.dispose();
      el.removeEventListener('touchstart', onPanStart, { capture: true });
      el.removeEventListener('touchmove', onPanMove, { capture: true });
      el.removeEventListener('wheel', onPanWheel, { capture: true });
      el.removeEventListener('wheel', onWheel);
      el.removeEventListener('touchstart', onTouchStart);
      el.removeEventListener('touchmove', onTouchMove);
      offMods();
      link.detach();
      term.dispose();
      unbridge();
      termRef.current = null;
      linkRef.current = null;
    };
  }, [conn, sessionId, reachedTop, openHistory, updatePager]);

  /** "Fit to this screen" (R-SIZE-2): take the size; xterm follows when the Burrow says it changed. */
  const fitToScreen = () => {
    const size = proposeRef.current?.() ?? null;
    if (size === null) return;
    proposalRef.current = size;
    linkRef.current?.fit(size.cols, size.rows);
  };

  const paste = async () => {
    try {
      routerRef.current?.paste(await navigator.clipboard.readText());
    } catch {
      // Clipboard read denied: the composition input accepts a long-press paste instead.
    }
    termRef.current?.focus();
  };

  const openSelection = () => {
    const term = termRef.current;
    const el = host.current;
    if (!term || !el) return;
    const buf = term.buffer.active;
    const lines: string[] = [];
    for (let i = 0; i < buf.length; i++) lines.push(buf.getLine(i)?.translateToString(true) ?? '');
    // Exactly over the terminal (issue 17 item 7), wherever the status line or history put it.
    setSelectionBox({ top: el.offsetTop, height: el.offsetHeight });
    setSelectText(lines.join('\n').replace(/\n+$/, ''));
  };
  // Select mode opens where the terminal is: at the bottom of the buffer, the latest output in view.
  useLayoutEffect(() => {
    const pre = selectionRef.current;
    if (selectText !== null && pre !== null) pre.scrollTop = pre.scrollHeight;
  }, [selectText]);

  const title = entry?.name ?? lastEntry.current?.name ?? 'Session';
  return (
    <main className="terminal-screen" aria-label={`Terminal: ${title}`}>
      <header className="term-head">
        <button type="button" aria-label="Back to the session list" onClick={onBack}>
          ‹
        </button>
        <h1 dir="auto">{title}</h1>
        <button type="button" onClick={fitToScreen} aria-label="Fit to this screen">
          Fit
        </button>
        <button type="button" onClick={openSelection} aria-label="Select text to copy">
          Select
        </button>
      </header>
      <ResumedLine entry={entry ?? lastEntry.current} nowMs={Date.now()} />
      {/* Offline is said once, by the app's banner above; this line is for the Burrow's side. */}
      {gone === null && online && (conn.status.kind !== 'connected' || entry?.exited) && (
        <p className="term-status" role="status">
          {entry?.exited ? 'this session has exited' : conn.statusText}
        </p>
      )}
      {refusal !== null && (
        <p className="term-status" role="alert">
          {refusal}
        </p>
      )}
      {gone === null && sizeInfo !== null && (sizeInfo.holder !== 'you' || overflow) && (
        <p className="term-size" role="status">
          {sizeText(sizeInfo, overflow)}
        </p>
      )}
      {historyOpen && pager !== null && (
        <HistoryRegion pager={pager} onNearTop={askOlder} onClose={() => openHistory(false)} />
      )}
      <div
        className="term-host"
        ref={host}
        data-painted={painted ? 'yes' : 'no'}
        data-snapshots={snapshots}
      />
      {selectText !== null && (
        <div
          className="selection"
          role="dialog"
          aria-label="Select text"
          style={selectionBox === null ? undefined : { top: selectionBox.top, height: selectionBox.height }}
        >
          <pre ref={selectionRef} tabIndex={-1}>
            {selectText}
          </pre>
          <div className="row">
            <button
              type="button"
              onClick={() => {
                const chosen = window.getSelection()?.toString() || selectText;
                void navigator.clipboard?.writeText(chosen).catch(() => undefined);
                setSelectText(null);
              }}
            >
              Copy
            </button>
            <button type="button" onClick={() => setSelectText(null)}>
              Done
            </button>
          </div>
        </div>
      )}
      {gone !== null ? (
        <div className="term-gone" role="alert">
          <p dir="auto">{goneText(gone, lastEntry.current?.name ?? null, burrow.name)}</p>
          <button type="button" onClick={onBack}>
            Back to the list
          </button>
        </div>
      ) : (
        <>
          <KeyBar
            modifiers={modifiers}
            onAction={(a) => {
              if (a.kind === 'paste') void paste();
              else routerRef.current?.bar(a);
            }}
          />
          <CompositionInput onSend={(text) => routerRef.current?.composed(text)} />
        </>
      )}
    </main>
  );
}

/** Horizontal padding of `.term-host` (app.css), which the box xterm fits in excludes. */
const HOST_PADDING_X = 4;

/**
 * What the fit addon measures, read from xterm without resizing it (the addon itself reads the same render
 * dimensions): the device cell, the pixel ratio, and the host's box less the scrollbar.
 */
function screenMetrics(term: Terminal, host: HTMLElement): ScreenMetrics | null {
  const dims = renderDimensions(term);
  if (!dims || dims.device.cell.width === 0 || dims.device.cell.height === 0) return null;
  const style = getComputedStyle(host);
  const scrollbar = term.options.scrollback === 0 ? 0 : (term.options.overviewRuler?.width ?? 14);
  return {
    deviceCellWidth: dims.device.cell.width,
    deviceCellHeight: dims.device.cell.height,
    dpr: window.devicePixelRatio || 1,
    width: Math.max(0, Number.parseInt(style.width, 10) - scrollbar),
    height: Math.max(0, Number.parseInt(style.height, 10)),
  };
}

interface RenderDimensions {
  readonly device: { readonly cell: { readonly width: number; readonly height: number } };
  readonly css: { readonly canvas: { readonly width: number; readonly height: number } };
}

/** xterm's render dimensions (not public API; the fit addon reads the same object). */
function renderDimensions(term: Terminal): RenderDimensions | undefined {
  return (term as unknown as { _core?: { _renderService?: { dimensions?: RenderDimensions } } })._core
    ?._renderService?.dimensions;
}

/** The line under the header while this phone does not hold the size, or the grid does not fit. */
export function sizeText(info: SizeAuthorityInfo & Cells, overflow: boolean): string {
  const who =
    info.holder === 'local'
      ? 'the terminal on your computer'
      : info.holder === 'remote'
        ? 'another phone'
        : info.holder === 'you'
          ? 'this phone'
          : 'nobody';
  const away = info.holderAway ? ' (reconnecting)' : '';
  const how = overflow
    ? 'Drag to see the rest; Fit makes it this screen’s size.'
    : 'Fit makes it this screen’s size.';
  return `${info.cols}×${info.rows}, sized by ${who}${away}. ${how}`;
}
