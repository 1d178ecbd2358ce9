/**
 * A snapshot for a viewer that keeps its scrollback (protocol R-ATTACH-8): the older lines it asked for, as
 * plain text, put in front of the serialized screen so that replaying the whole into an empty terminal leaves
 * those lines in scrollback and everything else exactly as the snapshot alone would.
 *
 * Why the prefix is shaped so: the snapshot is written from the home position of an empty terminal. The lines
 * are written one per row, then `rows` line feeds push the last of them just off the top (the rows below it
 * were blank, so no blank line enters the scrollback), and CUP home puts the cursor where an empty terminal
 * has it. The snapshot then lands on a blank screen with the cursor at home, as on a fresh terminal — whether
 * or not it carries scrollback of its own, whichever screen is active.
 */
import type { HistoryPage } from './screen-host.js';
import type { ScreenSnapshot } from './screen-model.js';

export interface RefilledSnapshot {
  readonly data: string;
  /** Absolute number of the first line in `data`. */
  readonly firstLine: number;
}

/**
 * `snapshot` with `refill` (lines ending at `snapshot.historyEnd`) in front, keeping the newest of them that fit
 * in `maxBytes` of UTF-8 together with the snapshot.
 */
export function refilledSnapshot(
  snapshot: ScreenSnapshot,
  refill: HistoryPage | null,
  maxBytes: number,
): RefilledSnapshot {
  const plain = { data: snapshot.data, firstLine: snapshot.historyEnd };
  if (refill === null || refill.lines.length === 0) return plain;
  if (refill.first + refill.lines.length !== snapshot.historyEnd)
    throw new RangeError('the refill must end where the snapshot begins');
  const tail = `${'\r\n'.repeat(snapshot.rows)}\x1b[H`;
  let budget = maxBytes - Buffer.byteLength(snapshot.data, 'utf8') - tail.length;
  let start = refill.lines.length;
  while (start > 0) {
    const cost = Buffer.byteLength(refill.lines[start - 1]!, 'utf8') + 2;
    if (cost > budget) break;
    budget -= cost;
    start--;
  }
  if (start === refill.lines.length) return plain;
  const lines = refill.lines.slice(start);
  return { data: `${lines.join('\r\n')}${tail}${snapshot.data}`, firstLine: refill.first + start };
}
