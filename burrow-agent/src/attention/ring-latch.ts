/**
 * The session's one ring (alert-spec Public State, Clearing And TODO): a latch with three sources, each
 * uninterrupted ringing interval one episode (id + start). A source joining an active ring joins its episode
 * and may only enrich its detail; the ring emptying ends the episode. `todo` is the reminder a look leaves.
 */
import type { CommandExit } from './awaits.js';
import { type ActivityNotification, richer } from './notification.js';
import { type ReportKey, ReportKeys } from './report-keys.js';

export type RingSource = 'report' | 'watching' | 'exit';

/** Where a raised source came from, beyond its detail. */
export interface RaiseOrigin {
  /** A report's key (see ReportKey). */
  readonly reportId?: ReportKey;
  /** A held report's ids, carried over when the hold rings. */
  readonly reports?: ReportKeys;
  /** The command whose exit this is. */
  readonly exit?: CommandExit | null;
}

export interface Ring {
  readonly episodeId: number;
  readonly since: number;
  readonly sources: Set<RingSource>;
  detail: ActivityNotification;
  /** The key whose settle raised the watching source; it outlives the command (alert-spec WATCHING Track). */
  watchKey: string | null;
  /** Output resumed since the watching source joined (an await then skips that source). */
  outputSinceWatching: boolean;
  /** The reports behind the report source. */
  readonly reports: ReportKeys;
  /** The command whose exit raised the exit source (an await consuming it reports this). */
  exit: CommandExit | null;
}

export class RingLatch {
  ring: Ring | null = null;
  todo = false;
  todoNotification: ActivityNotification | null = null;

  /** Raises `source`: opens a new episode, or joins the current one. Returns whether it opened. */
  raise(
    source: RingSource,
    detail: ActivityNotification,
    now: number,
    nextEpisodeId: () => number,
    watchKey: string | null,
    origin: RaiseOrigin = {},
  ): boolean {
    const opened = this.ring === null;
    if (this.ring === null) {
      this.ring = {
        episodeId: nextEpisodeId(),
        since: now,
        sources: new Set(),
        detail,
        watchKey: null,
        outputSinceWatching: false,
        reports: new ReportKeys(),
        exit: null,
      };
    } else {
      this.ring.detail = richer(this.ring.detail, detail);
    }
    this.ring.sources.add(source);
    if (source === 'watching') {
      this.ring.watchKey = watchKey;
      this.ring.outputSinceWatching = false;
    }
    if (source === 'report') {
      if (origin.reports !== undefined) this.ring.reports.merge(origin.reports);
      else this.ring.reports.add(origin.reportId);
    }
    if (source === 'exit') this.ring.exit = origin.exit ?? null;
    return opened;
  }

  /**
   * Withdraws one source (an await's consumption, resumed work, a rule removal). Never acknowledges: a ring it
   * empties goes with its detail and todo stays as it stood.
   */
  withdraw(source: RingSource): boolean {
    if (this.ring === null || !this.ring.sources.delete(source)) return false;
    if (source === 'watching') this.ring.watchKey = null;
    if (source === 'exit') this.ring.exit = null;
    if (this.ring.sources.size === 0) this.ring = null;
    return true;
  }

  /** Clears the ring for a user verb; returns what was ringing. */
  clear(): Ring | null {
    const r = this.ring;
    this.ring = null;
    return r;
  }

  setTodo(on: boolean, detail: ActivityNotification | null): void {
    this.todo = on;
    this.todoNotification = on ? detail : null;
  }

  /** notification: the ring's detail while ringing, else the TODO's. */
  get notification(): ActivityNotification | null {
    if (this.ring) return this.ring.detail;
    return this.todo ? this.todoNotification : null;
  }
}
