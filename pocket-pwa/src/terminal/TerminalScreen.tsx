/**
 * The terminal view (issue 5 "Terminal view"; DESIGN §7): xterm.js fitted to the phone, attached to one
 * session. The attach answer paints the session's current screen at once; live output follows from its offset,
 * and the core re-attaches from the last offset after a reconnect. Lazy-loaded: xterm is most of the app's JS.
 */
import '@xterm/xterm/css/xterm.css';
import { ErrorCode, MAX_HISTORY_LINES, type SessionEntry } from '@burrow/protocol';
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import type { PairedBurrow } from '../app/burrow-hub.js';
import type { TerminalLink } from '../app/connection-port.js';
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
import { fitTerminal } from './stable-fit.js';
import { NO_MODIFIERS } from './sticky-modifiers.js';
import { TERMINAL_FONT_FAMILY, TERMINAL_FONT_SIZE_PX } from './terminal-metrics.js';
import { applySessionWidths } from './terminal-widths.js';
import { useVisualViewport } from './use-visual-viewport.js';

/** Lines xterm keeps locally: a whole history page (protocol MAX_HISTORY_LINES), so a full snapshot fits. */
const LOCAL_SCROLLBACK_LINES = MAX_HISTORY_LINES;
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
    fitTerminal(term, fit);
    termRef.current = term;
    fitRef.current = fit;

    const link = conn.attach(
      sessionId,
      { cols: term.cols, rows: term.rows },
      {
        onSnapshot: (s) => {
          term.reset();
          // A new snapshot starts a new line numbering base: older pages are fetched afresh (R-ATTACH-5).
          updatePager(resetPager(pagerRef.current, s.firstLine, s.hasOlder));
          openHistory(false);
          if (s.cols !== term.cols || s.rows !== term.rows) term.resize(s.cols, s.rows);
          term.write(s.data, () => setPainted(true));
        },
        onOutput: (bytes) => term.write(bytes),
        onSizeChanged: (cols, rows) => {
          if (cols !== term.cols || rows !== term.rows) term.resize(cols, rows);
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

    let settle: ReturnType<typeof setTimeout> | undefined;
    const observer = new ResizeObserver(() => {
      clearTimeout(settle);
      settle = setTimeout(() => {
        // The history region takes room from the host while open: the PTY keeps its size (the host clips).
        if (historyOpenRef.current) return;
        const before = `${term.cols}x${term.rows}`;
        fitTerminal(term, fit);
        if (`${term.cols}x${term.rows}` !== before) link.resize(term.cols, term.rows);
      }, RESIZE_SETTLE_MS);
    });
    observer.observe(el);

    return () => {
      clearTimeout(settle);
      observer.disconnect();
      onData.dispose();
      onScroll.dispose();
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

  const fitToScreen = () => {
    const term = termRef.current;
    const fit = fitRef.current;
    if (!term || !fit) return;
    fitTerminal(term, fit);
    linkRef.current?.fit(term.cols, term.rows);
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
      {historyOpen && pager !== null && (
        <HistoryRegion pager={pager} onNearTop={askOlder} onClose={() => openHistory(false)} />
      )}
      <div className="term-host" ref={host} data-painted={painted ? 'yes' : 'no'} />
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
