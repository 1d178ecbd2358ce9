/**
 * Feeds the phone's presence and the session on screen to every connected Burrow (alert-spec "Engagement";
 * DESIGN §5 "Viewers"). Presence is computed by the pure `presenceOf`; this hook only gathers DOM signals
 * (visibility, focus, typing / pointer / wheel / scrolling / composition), re-sends after each reconnect, and
 * while present re-sends after input every PRESENCE_REFRESH_MS, so the phone's use keeps it present at the
 * Burrow (issue 23).
 */
import { useEffect, useRef, useState } from 'react';
import type { PairedBurrow } from '../app/burrow-hub.js';
import type { PocketConnection } from '../app/connection-port.js';
import {
  DEFAULT_INACTIVITY_TIMEOUT_MS,
  nextPresenceChangeAt,
  type PresenceInputs,
  type PresenceReport,
  presenceOf,
  presenceRefreshDue,
  samePresence,
} from './presence.js';

const INPUT_EVENTS = [
  'keydown',
  'pointerdown',
  'pointermove',
  'wheel',
  'scroll',
  'touchstart',
  'compositionstart',
  'compositionupdate',
  'input',
];
/** Pointer moves come in bursts; one timestamp per this many ms is plenty for a window measured in seconds. */
const INPUT_THROTTLE_MS = 1000;

function readInputs(lastInputAt: number | null): PresenceInputs {
  return { visible: document.visibilityState === 'visible', focused: document.hasFocus(), lastInputAt };
}

export function useEngagement(
  burrows: readonly PairedBurrow[],
  onScreen: { burrowId: string; sessionId: string } | null,
  now: () => number = Date.now,
  inactivityTimeoutMs: number = DEFAULT_INACTIVITY_TIMEOUT_MS,
): void {
  const [report, setReport] = useState<PresenceReport>(() =>
    presenceOf(readInputs(null), now(), inactivityTimeoutMs),
  );
  const lastInputAt = useRef<number | null>(null);
  /** Bumped by input, so the sending effect below runs and can refresh presence. */
  const [, setInputBeat] = useState(0);
  const sentPresence = useRef(new WeakMap<PocketConnection, PresenceReport>());
  const sentAt = useRef(new WeakMap<PocketConnection, number>());
  const sentFocus = useRef(new WeakMap<PocketConnection, string | null>());

  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const recompute = () => {
      const inputs = readInputs(lastInputAt.current);
      const t = now();
      const next = presenceOf(inputs, t, inactivityTimeoutMs);
      setReport((prev) => (samePresence(prev, next) ? prev : next));
      clearTimeout(timer);
      const at = nextPresenceChangeAt(inputs, t, inactivityTimeoutMs);
      if (at !== null) timer = setTimeout(recompute, at - t);
    };
    const onInput = () => {
      const t = now();
      if (lastInputAt.current !== null && t - lastInputAt.current < INPUT_THROTTLE_MS) return;
      lastInputAt.current = t;
      recompute();
      setInputBeat((n) => n + 1);
    };
    for (const e of INPUT_EVENTS) window.addEventListener(e, onInput, { capture: true, passive: true });
    document.addEventListener('visibilitychange', recompute);
    window.addEventListener('focus', recompute);
    window.addEventListener('blur', recompute);
    recompute();
    return () => {
      clearTimeout(timer);
      for (const e of INPUT_EVENTS) window.removeEventListener(e, onInput, { capture: true });
      document.removeEventListener('visibilitychange', recompute);
      window.removeEventListener('focus', recompute);
      window.removeEventListener('blur', recompute);
    };
  }, [now, inactivityTimeoutMs]);

  useEffect(() => {
    for (const b of burrows) {
      const conn = b.connection;
      if (conn.status.kind !== 'connected') {
        // After a reconnect the Burrow knows nothing of this viewer: send everything again.
        sentPresence.current.delete(conn);
        sentFocus.current.delete(conn);
        continue;
      }
      const t = now();
      const changed = !samePresence(sentPresence.current.get(conn) ?? null, report);
      if (changed || presenceRefreshDue(report, sentAt.current.get(conn) ?? null, lastInputAt.current, t)) {
        conn.presence(report.state, { focused: report.focused, visible: report.visible });
        sentPresence.current.set(conn, report);
        sentAt.current.set(conn, t);
      }
      const focus = onScreen !== null && onScreen.burrowId === b.record.burrowId ? onScreen.sessionId : null;
      if (sentFocus.current.get(conn) !== focus) {
        conn.focus(focus);
        sentFocus.current.set(conn, focus);
      }
    }
  });
}
