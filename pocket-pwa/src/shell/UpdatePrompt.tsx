import type { UpdateHandle } from './service-worker.js';

/** A visible, dismissable prompt for a new app version (never applied silently mid-session). */
export function UpdatePrompt({ update, onLater }: { update: UpdateHandle; onLater(): void }) {
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
