import { useState } from 'react';
import { homeScreenState, type IosSignals, iosSignals } from './ios.js';

/** Where "Not now" is remembered (per browser; the hint is a nudge, not a setting). */
export const INSTALL_HINT_DISMISSED_KEY = 'pocket.installHintDismissed';

export interface InstallHintProps {
  readonly ios?: IosSignals;
  readonly storage?: Pick<Storage, 'getItem' | 'setItem'>;
}

/**
 * On iPhone and iPad in a browser tab: how to add Pocket to the Home Screen, and why (full screen, and
 * notifications, which iOS gives only to Home Screen apps). Nothing anywhere else, or once dismissed.
 */
export function InstallHint({ ios = iosSignals(), storage = window.localStorage }: InstallHintProps) {
  const [dismissed, setDismissed] = useState(() => storage.getItem(INSTALL_HINT_DISMISSED_KEY) === '1');
  if (dismissed || homeScreenState(ios) !== 'in-browser') return null;
  return (
    <aside className="install-hint" aria-label="Add Pocket to the Home Screen">
      <p>
        Add Pocket to your Home Screen: tap <strong>Share</strong>, then <strong>Add to Home Screen</strong>.
        It then opens full screen and can notify you when a terminal needs you.
      </p>
      <button
        type="button"
        onClick={() => {
          storage.setItem(INSTALL_HINT_DISMISSED_KEY, '1');
          setDismissed(true);
        }}
      >
        Not now
      </button>
    </aside>
  );
}
