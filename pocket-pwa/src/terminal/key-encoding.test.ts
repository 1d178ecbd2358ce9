import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyModifiers, type BarKey, ctrlChar, encodeBarKey } from './key-encoding.js';
import { afterKey, NO_MODIFIERS, tapModifier } from './sticky-modifiers.js';

const none = { ctrl: false, alt: false };

describe('encodeBarKey', () => {
  it('encodes cursor keys in normal and application mode', () => {
    expect(encodeBarKey('ArrowUp', none, false)).toBe('\x1b[A');
    expect(encodeBarKey('ArrowUp', none, true)).toBe('\x1bOA');
    expect(encodeBarKey('Home', none, false)).toBe('\x1b[H');
    expect(encodeBarKey('End', none, true)).toBe('\x1bOF');
  });
  it('adds the xterm modifier parameter', () => {
    expect(encodeBarKey('ArrowLeft', { ctrl: true, alt: false }, true)).toBe('\x1b[1;5D');
    expect(encodeBarKey('ArrowRight', { ctrl: false, alt: true }, false)).toBe('\x1b[1;3C');
    expect(encodeBarKey('PageUp', none, false)).toBe('\x1b[5~');
    expect(encodeBarKey('PageDown', { ctrl: true, alt: true }, false)).toBe('\x1b[6;7~');
  });
  it('sends Esc, Alt-Esc and Tab', () => {
    expect(encodeBarKey('Escape', none, false)).toBe('\x1b');
    expect(encodeBarKey('Escape', { ctrl: false, alt: true }, false)).toBe('\x1b\x1b');
    expect(encodeBarKey('Tab', none, false)).toBe('\t');
  });
  it('only ever produces short ASCII', () => {
    const keys: BarKey[] = [
      'Escape',
      'Tab',
      'ArrowUp',
      'ArrowDown',
      'ArrowRight',
      'ArrowLeft',
      'PageUp',
      'PageDown',
      'Home',
      'End',
    ];
    fc.assert(
      fc.property(fc.constantFrom(...keys), fc.boolean(), fc.boolean(), fc.boolean(), (k, c, a, app) => {
        expect(encodeBarKey(k, { ctrl: c, alt: a }, app)).toMatch(/^[\x1b\x09 -~]{1,8}$/);
      }),
      { seed: 2, numRuns: 200 },
    );
  });
});

describe('modifiers on typed text', () => {
  it('turns Ctrl+c into ^C and Alt+x into ESC x', () => {
    expect(applyModifiers('c', { ctrl: true, alt: false })).toBe('\x03');
    expect(applyModifiers('C', { ctrl: true, alt: false })).toBe('\x03');
    expect(applyModifiers('x', { ctrl: false, alt: true })).toBe('\x1bx');
    expect(applyModifiers('b', { ctrl: true, alt: true })).toBe('\x1b\x02');
    expect(applyModifiers('ls', { ctrl: true, alt: false })).toBe('\x0cs');
    expect(applyModifiers('😀a', { ctrl: true, alt: false })).toBe('😀a');
    expect(applyModifiers('abc', none)).toBe('abc');
    expect(ctrlChar('/')).toBe('\x1f');
    expect(ctrlChar('é')).toBeNull();
  });

  it('never splits a surrogate pair', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 8 }), fc.boolean(), fc.boolean(), (s, c, a) => {
        const out = applyModifiers(s, { ctrl: c, alt: a });
        expect(out.isWellFormed()).toBe(s.isWellFormed());
      }),
      { seed: 3, numRuns: 300 },
    );
  });
});

describe('sticky modifiers', () => {
  it('tap arms once, second tap locks, third releases; a key uses up only a one-shot', () => {
    const once = tapModifier(NO_MODIFIERS, 'ctrl');
    expect(once.ctrl).toBe('once');
    expect(afterKey(once).ctrl).toBe('off');
    const locked = tapModifier(once, 'ctrl');
    expect(afterKey(locked).ctrl).toBe('locked');
    expect(tapModifier(locked, 'ctrl').ctrl).toBe('off');
    expect(tapModifier(NO_MODIFIERS, 'alt')).toEqual({ ctrl: 'off', alt: 'once' });
  });
});
