import { useSyncExternalStore } from 'react';
import type { BuildGuard } from './build-guard.js';
import type { BuildVerdict } from './build-verdict.js';
import './build-warning.css';

/** Paths named in a warning at most (the rest are counted). */
const MAX_NAMED_PATHS = 3;

function listed(paths: readonly string[]): string {
  const named = paths.slice(0, MAX_NAMED_PATHS).join(', ');
  return paths.length > MAX_NAMED_PATHS ? `${named} and ${paths.length - MAX_NAMED_PATHS} more` : named;
}

/** Why a Burrow does not vouch for this copy, in words (R-BUILD-2). */
export function verdictText(verdict: BuildVerdict): string {
  switch (verdict.kind) {
    case 'differs': {
      const parts = [
        verdict.changed.length > 0 ? `changed: ${listed(verdict.changed)}` : '',
        verdict.missing.length > 0 ? `missing: ${listed(verdict.missing)}` : '',
        verdict.extra.length > 0 ? `added: ${listed(verdict.extra)}` : '',
      ].filter((p) => p !== '');
      return `this copy (build ${verdict.buildId.slice(0, 8)}) is not the build it vouches for — ${parts.join('; ')}`;
    }
    case 'none-vouched':
      return 'it vouches for no Pocket build (update Burrow on that computer, or build Pocket there)';
    case 'unverifiable':
      return `Pocket cannot check which build it runs: ${verdict.why}`;
    default:
      return '';
  }
}

/**
 * The warning (issue 16 item 7): shown whenever a paired Burrow does not vouch for the Pocket build this phone
 * runs. Input to that Burrow is refused meanwhile (guarded-connection.ts).
 */
export function BuildWarning({
  guard,
  burrows,
}: {
  guard: BuildGuard;
  burrows: readonly { readonly record: { readonly burrowId: string }; readonly name: string }[];
}) {
  useSyncExternalStore(guard.subscribe, guard.getVersion);
  const bad = burrows
    .map((b) => ({ name: b.name, id: b.record.burrowId, verdict: guard.verdict(b.record.burrowId) }))
    .filter((b) => b.verdict.kind !== 'vouched' && b.verdict.kind !== 'checking');
  if (bad.length === 0) return null;
  return (
    <section className="build-warning" role="alert" aria-label="Pocket build warning">
      <strong>Warning: this copy of Pocket is not one your computer vouches for.</strong>
      <p>
        The relay that delivered Pocket may have changed it. Typing is turned off: Pocket sends no keystrokes,
        pastes or commands to these computers, and you should not enter anything secret here.
      </p>
      <ul>
        {bad.map((b) => (
          <li key={b.id}>
            <span dir="auto">{b.name}</span>: {verdictText(b.verdict)}
          </li>
        ))}
      </ul>
    </section>
  );
}
