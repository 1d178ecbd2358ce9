/**
 * Issue 23: the phone's use keeps it present at the Burrow. The hook re-sends `present` after input (typing,
 * taps, scrolling), so a phone used every 10 s for 3 minutes never lapses to idle there, and one put away
 * reports so at once. Injected clock; the DOM events are happy-dom's.
 */
import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { PairedBurrow } from '../app/burrow-hub.js';
import type { PairingRecord } from '../core/pairing-storage.js';
import { MemoryConnection } from '../test-support/memory-connection.js';
import { DEFAULT_INACTIVITY_TIMEOUT_MS } from './presence.js';
import { useEngagement } from './use-engagement.js';

function burrow(connection: MemoryConnection): PairedBurrow {
  return {
    record: { burrowId: 'b1' } as PairingRecord,
    name: 'home',
    connection,
    revoked: false,
  };
}

const presences = (c: MemoryConnection) => c.calls.filter((call) => call[0] === 'presence');

describe('useEngagement keeps a used phone present (issue 23)', () => {
  let t = 1_000_000;
  const now = () => t;
  beforeEach(() => {
    vi.useFakeTimers();
    vi.spyOn(document, 'hasFocus').mockReturnValue(true);
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('typing or tapping every 10 s for 3 minutes: present the whole time, refreshed inside every window', () => {
    const conn = new MemoryConnection();
    const burrows = [burrow(conn)];
    const { rerender } = renderHook(() =>
      useEngagement(burrows, { burrowId: 'b1', sessionId: 's1' }, now, DEFAULT_INACTIVITY_TIMEOUT_MS),
    );
    act(() => {
      window.dispatchEvent(new KeyboardEvent('keydown', { key: 'a' }));
    });
    const sentAt: number[] = [];
    let last = presences(conn).length;
    for (let step = 1; step <= 18; step++) {
      act(() => {
        t += 10_000;
        vi.advanceTimersByTime(10_000);
        const e = step % 2 === 0 ? new KeyboardEvent('keydown', { key: 'a' }) : new Event('pointerdown');
        window.dispatchEvent(e);
      });
      rerender();
      const all = presences(conn);
      for (let k = last; k < all.length; k++) sentAt.push(t);
      last = all.length;
    }
    // Idle at mount (no input yet); from the first keystroke on, present only.
    const states = presences(conn).map((c) => c[1]);
    expect(states[0]).toBe('idle');
    states.shift();
    expect(states).not.toContain('idle');
    expect(states).not.toContain('away');
    expect(sentAt.length).toBeGreaterThanOrEqual(17);
    for (let i = 1; i < sentAt.length; i++)
      expect(sentAt[i]! - sentAt[i - 1]!).toBeLessThan(DEFAULT_INACTIVITY_TIMEOUT_MS);
  });

  it('with no more input it lapses to idle at the end of the window', () => {
    const conn = new MemoryConnection();
    const burrows = [burrow(conn)];
    renderHook(() => useEngagement(burrows, null, now, DEFAULT_INACTIVITY_TIMEOUT_MS));
    act(() => {
      window.dispatchEvent(new KeyboardEvent('keydown', { key: 'a' }));
    });
    expect(presences(conn).at(-1)?.[1]).toBe('present');
    act(() => {
      t += DEFAULT_INACTIVITY_TIMEOUT_MS;
      vi.advanceTimersByTime(DEFAULT_INACTIVITY_TIMEOUT_MS);
    });
    expect(presences(conn).at(-1)?.[1]).toBe('idle');
  });
});
