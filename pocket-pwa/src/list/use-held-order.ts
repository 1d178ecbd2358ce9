/**
 * React glue for held-order.ts: tracks fingers on the list and returns the rows in the order to show, plus
 * the pointer handlers for the list element.
 */
import { type PointerEvent, useEffect, useRef, useState } from 'react';
import { type Clock, systemClock } from '../core/index.js';
import { HOLD_AFTER_TOUCH_MS, heldOrder } from './held-order.js';

export interface HeldOrder<T> {
  readonly rows: T[];
  /** Spread on the list element. */
  readonly listProps: {
    onPointerDown(e: PointerEvent): void;
    onPointerUp(e: PointerEvent): void;
    onPointerCancel(e: PointerEvent): void;
  };
}

export function useHeldOrder<T extends { readonly id: string }>(
  sorted: readonly T[],
  clock: Clock = systemClock,
): HeldOrder<T> {
  const [held, setHeld] = useState(false);
  /** Pointers down on the list now (a second finger must not end the hold when the first lifts). */
  const down = useRef(new Set<number>());
  const release = useRef<unknown>(null);
  const shown = useRef<readonly string[]>([]);
  const cancelRelease = () => {
    if (release.current !== null) clock.clearTimeout(release.current);
    release.current = null;
  };
  // Unmounted (the tap opened a session): no timer left to set state.
  useEffect(
    () => () => {
      if (release.current !== null) clock.clearTimeout(release.current);
    },
    [clock],
  );
  const lifted = (e: PointerEvent) => {
    down.current.delete(e.pointerId);
    if (down.current.size > 0) return;
    cancelRelease();
    release.current = clock.setTimeout(() => {
      release.current = null;
      setHeld(false);
    }, HOLD_AFTER_TOUCH_MS);
  };
  const rows = held ? heldOrder(shown.current, sorted) : [...sorted];
  // Written while rendering, which React allows only for what renders the same twice: held, a second render
  // of the same props puts the rows in the same places again.
  shown.current = rows.map((r) => r.id);
  return {
    rows,
    listProps: {
      onPointerDown: (e) => {
        down.current.add(e.pointerId);
        cancelRelease();
        setHeld(true);
      },
      onPointerUp: lifted,
      onPointerCancel: lifted,
    },
  };
}
