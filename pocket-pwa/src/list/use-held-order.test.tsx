/**
 * The list holds its order while a finger is on it: a re-sort between touch and click must not slide another
 * session under the finger (held-order.ts). Driven with a manual clock for the release timer.
 */
import { act, fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import type { Clock } from '../core/index.js';
import { manualClock as sharedManualClock } from '../test-support/manual-clock.js';
import { HOLD_AFTER_TOUCH_MS } from './held-order.js';
import { useHeldOrder } from './use-held-order.js';

/** The shared manual clock, its timers run inside act() (they set React state). */
function manualClock() {
  const c = sharedManualClock();
  return { clock: c.clock, advance: (ms: number) => act(() => c.advance(ms)) };
}

function List({ order, clock, onOpen }: { order: string[]; clock: Clock; onOpen(id: string): void }) {
  const { rows, listProps } = useHeldOrder(
    order.map((id) => ({ id })),
    clock,
  );
  return (
    <ul {...listProps}>
      {rows.map((r) => (
        <li key={r.id}>
          <button type="button" onClick={() => onOpen(r.id)}>
            {r.id}
          </button>
        </li>
      ))}
    </ul>
  );
}

const shownOrder = () => screen.getAllByRole('button').map((b) => b.textContent);

describe('useHeldOrder', () => {
  it('follows the sort while nobody touches the list', () => {
    const { clock } = manualClock();
    const opened: string[] = [];
    const view = render(<List order={['a', 'b']} clock={clock} onOpen={(id) => opened.push(id)} />);
    view.rerender(<List order={['b', 'a']} clock={clock} onOpen={(id) => opened.push(id)} />);
    expect(shownOrder()).toEqual(['b', 'a']);
  });

  it('a re-sort between touch and click leaves the touched row under the finger, and the click opens it', () => {
    const { clock, advance } = manualClock();
    const opened: string[] = [];
    const open = (id: string) => opened.push(id);
    const view = render(<List order={['modes', 'wrap']} clock={clock} onOpen={open} />);
    const second = screen.getAllByRole('button')[1]!;
    fireEvent.pointerDown(second, { pointerId: 1 });
    // 'wrap' printed: the sort now puts it first, which would put 'modes' where the finger is.
    view.rerender(<List order={['wrap', 'modes']} clock={clock} onOpen={open} />);
    expect(shownOrder()).toEqual(['modes', 'wrap']);
    fireEvent.pointerUp(screen.getAllByRole('button')[1]!, { pointerId: 1, bubbles: true });
    fireEvent.click(screen.getAllByRole('button')[1]!);
    expect(opened).toEqual(['wrap']);
    // Held a moment after the finger lifts, then the sort wins.
    advance(HOLD_AFTER_TOUCH_MS - 1);
    expect(shownOrder()).toEqual(['modes', 'wrap']);
    advance(1);
    expect(shownOrder()).toEqual(['wrap', 'modes']);
  });

  it('a session that appears while held goes to the end; one that is gone leaves', () => {
    const { clock } = manualClock();
    const view = render(<List order={['a', 'b', 'c']} clock={clock} onOpen={() => {}} />);
    fireEvent.pointerDown(screen.getAllByRole('button')[0]!, { pointerId: 1 });
    view.rerender(<List order={['new', 'c', 'a']} clock={clock} onOpen={() => {}} />);
    expect(shownOrder()).toEqual(['a', 'c', 'new']);
  });

  it('stays held until the last of two fingers lifts, and a new touch restarts the hold', () => {
    const { clock, advance } = manualClock();
    const view = render(<List order={['a', 'b']} clock={clock} onOpen={() => {}} />);
    const list = screen.getByRole('list');
    fireEvent.pointerDown(list, { pointerId: 1 });
    fireEvent.pointerDown(list, { pointerId: 2 });
    view.rerender(<List order={['b', 'a']} clock={clock} onOpen={() => {}} />);
    fireEvent.pointerUp(list, { pointerId: 1, bubbles: true });
    advance(HOLD_AFTER_TOUCH_MS * 2);
    expect(shownOrder()).toEqual(['a', 'b']);
    fireEvent.pointerCancel(list, { pointerId: 2, bubbles: true });
    advance(HOLD_AFTER_TOUCH_MS - 100);
    fireEvent.pointerDown(list, { pointerId: 3 });
    advance(HOLD_AFTER_TOUCH_MS);
    expect(shownOrder()).toEqual(['a', 'b']);
    fireEvent.pointerUp(list, { pointerId: 3, bubbles: true });
    advance(HOLD_AFTER_TOUCH_MS);
    expect(shownOrder()).toEqual(['b', 'a']);
  });

  it('a finger that slides off the list and lifts elsewhere still ends the hold', () => {
    const { clock, advance } = manualClock();
    const view = render(
      <div>
        <List order={['a', 'b']} clock={clock} onOpen={() => {}} />
        <p>elsewhere</p>
      </div>,
    );
    fireEvent.pointerDown(screen.getAllByRole('button')[0]!, { pointerId: 4 });
    view.rerender(
      <div>
        <List order={['b', 'a']} clock={clock} onOpen={() => {}} />
        <p>elsewhere</p>
      </div>,
    );
    fireEvent.pointerUp(screen.getByText('elsewhere'), { pointerId: 4, bubbles: true });
    advance(HOLD_AFTER_TOUCH_MS);
    expect(shownOrder()).toEqual(['b', 'a']);
  });

  it('the page losing focus mid-touch ends the hold at once', () => {
    const { clock } = manualClock();
    const view = render(<List order={['a', 'b']} clock={clock} onOpen={() => {}} />);
    fireEvent.pointerDown(screen.getAllByRole('button')[0]!, { pointerId: 5 });
    view.rerender(<List order={['b', 'a']} clock={clock} onOpen={() => {}} />);
    expect(shownOrder()).toEqual(['a', 'b']);
    act(() => {
      window.dispatchEvent(new Event('blur'));
    });
    expect(shownOrder()).toEqual(['b', 'a']);
  });
});
