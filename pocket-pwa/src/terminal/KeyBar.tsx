import type { BarKey } from './key-encoding.js';
import type { ModifierName, ModifierState, Modifiers } from './sticky-modifiers.js';

export type BarAction =
  | { readonly kind: 'key'; readonly key: BarKey }
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'modifier'; readonly name: ModifierName }
  | { readonly kind: 'paste' };

interface BarButton {
  readonly label: string;
  readonly name: string;
  readonly action: BarAction;
}

const key = (label: string, name: string, k: BarKey): BarButton => ({
  label,
  name,
  action: { kind: 'key', key: k },
});
const text = (label: string, name: string, t: string): BarButton => ({
  label,
  name,
  action: { kind: 'text', text: t },
});

/** The key bar's keys, in order (issue 5 "Terminal view"). */
export const BAR_BUTTONS: readonly BarButton[] = [
  key('Esc', 'Escape', 'Escape'),
  key('Tab', 'Tab', 'Tab'),
  { label: 'Ctrl', name: 'Control', action: { kind: 'modifier', name: 'ctrl' } },
  { label: 'Alt', name: 'Alt', action: { kind: 'modifier', name: 'alt' } },
  text('^C', 'Control C (interrupt)', '\x03'),
  key('←', 'Left arrow', 'ArrowLeft'),
  key('↑', 'Up arrow', 'ArrowUp'),
  key('↓', 'Down arrow', 'ArrowDown'),
  key('→', 'Right arrow', 'ArrowRight'),
  key('PgUp', 'Page up', 'PageUp'),
  key('PgDn', 'Page down', 'PageDown'),
  key('Home', 'Home', 'Home'),
  key('End', 'End', 'End'),
  text('|', 'Pipe', '|'),
  text('~', 'Tilde', '~'),
  text('/', 'Slash', '/'),
  { label: 'Paste', name: 'Paste', action: { kind: 'paste' } },
];

const STATE_WORD: Record<ModifierState, string> = { off: '', once: ' (next key)', locked: ' (locked)' };

/**
 * A row of keys a phone keyboard lacks. Buttons do not take focus (pointerdown is cancelled), so the
 * on-screen keyboard stays up while they are tapped.
 */
export function KeyBar({ modifiers, onAction }: { modifiers: Modifiers; onAction(action: BarAction): void }) {
  return (
    <div className="key-bar" role="toolbar" aria-label="Terminal keys">
      {BAR_BUTTONS.map((b) => {
        const mod = b.action.kind === 'modifier' ? modifiers[b.action.name] : null;
        return (
          <button
            key={b.name}
            type="button"
            className={mod !== null && mod !== 'off' ? `mod-${mod}` : undefined}
            aria-label={b.name + (mod !== null ? STATE_WORD[mod] : '')}
            aria-pressed={mod === null ? undefined : mod !== 'off'}
            onPointerDown={(e) => e.preventDefault()}
            onClick={() => onAction(b.action)}
          >
            {b.label}
            {mod === 'locked' && <span aria-hidden="true">🔒</span>}
          </button>
        );
      })}
    </div>
  );
}
