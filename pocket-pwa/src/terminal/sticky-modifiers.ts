/**
 * Ctrl and Alt on the key bar are sticky (issue 5 "Terminal view"): a tap arms the modifier for the next key,
 * a second tap locks it until tapped again. Pure; the key bar renders the state, the terminal view consumes it.
 */
export type ModifierState = 'off' | 'once' | 'locked';
export type ModifierName = 'ctrl' | 'alt';

export interface Modifiers {
  readonly ctrl: ModifierState;
  readonly alt: ModifierState;
}

export const NO_MODIFIERS: Modifiers = { ctrl: 'off', alt: 'off' };

const NEXT: Record<ModifierState, ModifierState> = { off: 'once', once: 'locked', locked: 'off' };

export function tapModifier(mods: Modifiers, name: ModifierName): Modifiers {
  return { ...mods, [name]: NEXT[mods[name]] };
}

/** After a key has been sent: a one-shot modifier is used up, a locked one stays. */
export function afterKey(mods: Modifiers): Modifiers {
  return {
    ctrl: mods.ctrl === 'once' ? 'off' : mods.ctrl,
    alt: mods.alt === 'once' ? 'off' : mods.alt,
  };
}

export function isActive(state: ModifierState): boolean {
  return state !== 'off';
}
