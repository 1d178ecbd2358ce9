/**
 * Completions held while the session is engaged (alert-spec Completion events): the sources they would raise
 * and the richest detail, repeated holds merging, never public. Presence lapsing idle rings them; any other
 * end drops them — except an unanswered report, which the manager leaves as a TODO (issue 13; attention
 * README "Choices"), so the report's own detail is kept beside the merged one.
 */
import type { CommandExit } from './awaits.js';
import { type ActivityNotification, richer } from './notification.js';
import { type ReportKey, ReportKeys } from './report-keys.js';
import type { RingSource } from './ring-latch.js';

export interface Held {
  readonly sources: ReadonlySet<RingSource>;
  readonly detail: ActivityNotification;
  /** The key whose settle the watching source is for. */
  readonly watchKey: string | null;
  readonly reports: ReportKeys;
  /** The richest held report's detail alone (what a detach leaves as a TODO), or null. */
  readonly reportDetail: ActivityNotification | null;
  /** The command whose exit the exit source is for. */
  readonly exit: CommandExit | null;
}

interface MutableHeld {
  readonly sources: Set<RingSource>;
  detail: ActivityNotification;
  watchKey: string | null;
  readonly reports: ReportKeys;
  reportDetail: ActivityNotification | null;
  exit: CommandExit | null;
}

export class HeldCompletions {
  #held: MutableHeld | null = null;

  get current(): Held | null {
    return this.#held;
  }

  add(
    source: RingSource,
    detail: ActivityNotification,
    origin: { watchKey: string | null; reportId: ReportKey; exit: CommandExit | null },
  ): void {
    if (this.#held === null) {
      this.#held = {
        sources: new Set(),
        detail,
        watchKey: null,
        reports: new ReportKeys(),
        reportDetail: null,
        exit: null,
      };
    } else this.#held.detail = richer(this.#held.detail, detail);
    const held = this.#held;
    held.sources.add(source);
    if (source === 'watching') held.watchKey = origin.watchKey;
    if (source === 'exit') held.exit = origin.exit;
    if (source === 'report') {
      held.reports.add(origin.reportId);
      held.reportDetail = richer(held.reportDetail, detail);
    }
  }

  /** Withdraws one held source; the hold goes when none is left. */
  dropSource(source: RingSource): void {
    if (this.#held?.sources.delete(source) && this.#held.sources.size === 0) this.#held = null;
  }

  /** OSC 99 `p=close` (and its kin): a held report source only withdrawn reports raised is dropped. */
  closeReport(match: (id: string) => boolean): void {
    const held = this.#held;
    if (held?.sources.has('report') && held.reports.closeWhere(match)) {
      held.reportDetail = null;
      this.dropSource('report');
    }
  }

  /** Removes and returns what was held. */
  take(): Held | null {
    const held = this.#held;
    this.#held = null;
    return held;
  }
}
