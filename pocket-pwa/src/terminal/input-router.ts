/**
 * Where every keystroke of the terminal view goes: key bar taps, typing into xterm, the composition input and
 * paste all pass the sticky modifiers (applied once, then released unless locked) and reach the session as
 * `user` input; xterm's query answers go out as `reply`, its own focus reports not at all. Pure apart from the
 * injected sink, so the whole path is tested without a DOM terminal.
 */

import type { BarAction } from './KeyBar.js';
import { applyModifiers, encodeBarKey } from './key-encoding.js';
import { classifyTerminalData } from './reply-classifier.js';
import { afterKey, isActive, type Modifiers, NO_MODIFIERS, tapModifier } from './sticky-modifiers.js';

export interface InputSink {
  user(data: string): void;
  reply(data: string): void;
}

/** Longest paste sent in one go: the clipboard is outside input, so it is bounded here. */
export const MAX_PASTE_CHARS = 1024 * 1024;

export class InputRouter {
  #mods: Modifiers = NO_MODIFIERS;
  readonly #listeners = new Set<(m: Modifiers) => void>();

  constructor(
    private readonly sink: InputSink,
    /** Whether the program enabled application cursor keys (xterm's DECCKM state), read at each key. */
    private readonly applicationCursor: () => boolean,
    /** Whether the program enabled bracketed paste (DECSET 2004). */
    private readonly bracketedPaste: () => boolean,
  ) {}

  get modifiers(): Modifiers {
    return this.#mods;
  }

  onModifiers(listener: (m: Modifiers) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** A key bar tap. Paste is handled by the caller (it needs the clipboard) and comes back through `paste`. */
  bar(action: BarAction): void {
    switch (action.kind) {
      case 'modifier':
        this.#set(tapModifier(this.#mods, action.name));
        return;
      case 'key':
        this.sink.user(encodeBarKey(action.key, this.#active(), this.applicationCursor()));
        this.#set(afterKey(this.#mods));
        return;
      case 'text':
        this.#typed(action.text);
        return;
      case 'paste':
        return;
    }
  }

  /** Data xterm produced (typing into the terminal, or an answer to a query). */
  terminalData(data: string): void {
    const kind = classifyTerminalData(data);
    if (kind === 'reply') this.sink.reply(data);
    else if (kind === 'user') this.#typed(data);
  }

  /** A line from the composition input (already ending in CR). */
  composed(text: string): void {
    this.#typed(text);
  }

  paste(text: string): void {
    const bounded = text.slice(0, MAX_PASTE_CHARS).replace(/\r?\n/g, '\r');
    if (bounded === '') return;
    // Bracketed paste markers inside the pasted text would let it end the paste early and run as typed.
    const clean = bounded.replace(/\x1b\[20[01]~/g, '');
    this.sink.user(this.bracketedPaste() ? `\x1b[200~${clean}\x1b[201~` : clean);
  }

  #typed(text: string): void {
    const mods = this.#active();
    this.sink.user(mods.ctrl || mods.alt ? applyModifiers(text, mods) : text);
    this.#set(afterKey(this.#mods));
  }

  #active(): { ctrl: boolean; alt: boolean } {
    return { ctrl: isActive(this.#mods.ctrl), alt: isActive(this.#mods.alt) };
  }

  #set(next: Modifiers): void {
    if (next.ctrl === this.#mods.ctrl && next.alt === this.#mods.alt) return;
    this.#mods = next;
    for (const l of this.#listeners) l(next);
  }
}
