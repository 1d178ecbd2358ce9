import type { UpdateHandle } from './service-worker.js';

/**
 * A visible, dismissable prompt for a new app version (never applied silently mid-session). An older build
 * (issue 24.6) is no update: it is shown as a warning, and going back takes an explicit "Go back".
 */
export function UpdatePrompt({ update, onLater }: { update: UpdateHandle; onLater(): void }) {
  const down = update.downgrade;
  if (down !== null) {
    const to = down.to ?? 'one without a version';
    const from = down.from ?? 'the one you run';
    return (
      <div className="update downgrade" role="alert" aria-label="Older Pocket offered">
        <span>
          Your relay offers an older Pocket ({to}) in place of {from}. Going back can undo a security fix:
          keep this version unless you know why.
        </span>
        <button type="button" onClick={onLater}>
          Keep this version
        </button>
        <button type="button" onClick={() => update.apply()}>
          Go back
        </button>
      </div>
    );
  }
  return (
    <div className="update" role="status">
      <span>A new version of Pocket is ready.</span>
      <button type="button" onClick={() => update.apply()}>
        Update
      </button>
      <button type="button" onClick={onLater}>
        Later
      </button>
    </div>
  );
}
