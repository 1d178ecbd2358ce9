/**
 * React glue for held-order.ts: a FingerHold fed the list's pointer-downs and the page's lifts, and the rows in
 * the order to show. The lift is heard on the window: a finger that slides off the list lifts elsewhere.
 */
import { type PointerEvent, useEffect, useRef, useState } from 'react';
import { type Clock, systemClock } from '../core/index.js';
import { FingerHold } from './finger-hold.js';
import { heldOrder } from './held-order.js';

export interface HeldOrder<T> {
  readonly rows: T[];
  /** Spread on the list element. */
  readonly listProps: { onPointerDown(e: PointerEvent): void };
}

export function useHeldOrder<T extends { readonly id: string }>(
  sorted: readonly T[],
  clock: Clock = systemClock,
): HeldOrder<T> {
  const [held, setHeld] = useState(false);
  const [hold] = useState(() => new FingerHold(clock, setHeld));
  const shown = useRef<readonly string[]>([]);
  useEffect(() => {
    const lifted = (e: Event) => hold.up((e as globalThis.PointerEvent).pointerId);
    const gone = () => hold.reset();
    window.addEventListener('pointerup', lifted);
    window.addEventListener('pointercancel', lifted);
    window.addEventListener('blur', gone);
    return () => {
      window.removeEventListener('pointerup', lifted);
      window.removeEventListener('pointercancel', lifted);
      window.removeEventListener('blur', gone);
      hold.dispose();
    };
  }, [hold]);
  const rows = held ? heldOrder(shown.current, sorted) : [...sorted];
  // Written while rendering, which React allows only for what renders the same twice: held, a second render
  // of the same props puts the rows in the same places again.
  shown.current = rows.map((r) => r.id);
  return { rows, listProps: { onPointerDown: (e) => hold.down(e.pointerId) } };
}
