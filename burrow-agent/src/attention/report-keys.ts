/**
 * Which reports raised a ring's (or a hold's) report source, so an OSC 99 `p=close` can withdraw it (issue 13;
 * attention README "Choices"), and an OSC 7501 record or an agent's title that leaves its needs-you state
 * withdraws what it raised (issue 23). Keys: a kitty id as is; `7501:<record id>`; `title:` (kitty ids
 * cannot hold `:`, so the three never collide).
 */

/** Kitty notification ids one ring (or hold) remembers for `p=close`; past this it stops tracking them. */
export const MAX_REPORT_IDS = 16;

/**
 * What a report is keyed by for `p=close`: a kitty OSC 99 id (a non-empty string); null for a report without
 * one (OSC 9, OSC 777, a progress end, OSC 99 without `i`), which no close can withdraw; undefined for a bare
 * BEL, which never keeps a report source against a close — a bell beside a request is part of it, and that
 * must not depend on whether a read split them (issue 13: the same rings however the stream is cut).
 */
export type ReportKey = string | null | undefined;

export class ReportKeys {
  readonly ids = new Set<string>();
  anonymous = false;

  add(key: ReportKey): void {
    if (key === undefined) return;
    if (key === null || key === '' || this.ids.size >= MAX_REPORT_IDS) this.anonymous = true;
    else this.ids.add(key);
  }

  merge(other: ReportKeys): void {
    if (other.anonymous) this.anonymous = true;
    for (const id of other.ids) this.add(id);
  }

  /** Forgets `id`; true when nothing left could keep the report source. */
  close(id: string): boolean {
    return this.closeWhere((key) => key === id);
  }

  /** Forgets every id `match` accepts; true when one was forgotten and nothing left could keep the source. */
  closeWhere(match: (id: string) => boolean): boolean {
    let closed = false;
    for (const id of this.ids) {
      if (!match(id)) continue;
      this.ids.delete(id);
      closed = true;
    }
    return closed && this.ids.size === 0 && !this.anonymous;
  }
}
