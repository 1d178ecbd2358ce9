import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { BAR_BUTTONS, KeyBar } from './KeyBar.js';
import { NO_MODIFIERS } from './sticky-modifiers.js';

describe('KeyBar', () => {
  it('has every key the issue names, each with an accessible name', () => {
    render(<KeyBar modifiers={NO_MODIFIERS} onAction={vi.fn()} />);
    for (const label of [
      'Esc',
      'Tab',
      'Ctrl',
      'Alt',
      '^C',
      '←',
      '↑',
      '↓',
      '→',
      'PgUp',
      'PgDn',
      'Home',
      'End',
      '|',
      '~',
      '/',
      'Paste',
    ]) {
      expect(BAR_BUTTONS.some((b) => b.label === label)).toBe(true);
    }
    expect(screen.getAllByRole('button')).toHaveLength(BAR_BUTTONS.length);
    expect(screen.getByRole('button', { name: 'Control' }).getAttribute('aria-pressed')).toBe('false');
  });

  it('shows sticky modifier state in words and aria-pressed, and never takes focus on pointerdown', () => {
    const onAction = vi.fn();
    render(<KeyBar modifiers={{ ctrl: 'once', alt: 'locked' }} onAction={onAction} />);
    expect(screen.getByRole('button', { name: 'Control (next key)' }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    expect(screen.getByRole('button', { name: 'Alt (locked)' }).getAttribute('aria-pressed')).toBe('true');
    const esc = screen.getByRole('button', { name: 'Escape' });
    expect(fireEvent.pointerDown(esc)).toBe(false);
    fireEvent.click(esc);
    expect(onAction).toHaveBeenCalledWith({ kind: 'key', key: 'Escape' });
  });
});
