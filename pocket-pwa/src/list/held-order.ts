/**
 * The session list's order, held still while a finger is on it.
 *
 * The list sorts ringing first, then TODO, then by last activity (DESIGN §7), so a busy session climbs as it
 * prints. Re-sorted between a touch and its click, the row that slid under the finger takes the click and the
 * phone opens another session (seen in the e2e runs of 4 Dec 2026: a tap on "modes" opened the session above
 * it, which had just printed). So while a pointer is down on the list, and for HOLD_AFTER_TOUCH_MS after it
 * lifts, rows keep the places they were shown in: their contents still update, a session that appears goes
 * to the end, one that is gone leaves. Then the list takes its sorted order again.
 */

/** How long the order stays held after the last finger lifts: long enough for the click and a second tap. */
export const HOLD_AFTER_TOUCH_MS = 1_000;

/**
 * `sorted` in the order `shown` had: ids still present keep their places, new ones follow in sorted order.
 * Linear in the list's length (a map of `sorted`, one pass over each).
 */
export function heldOrder<T extends { readonly id: string }>(
  shown: readonly string[],
  sorted: readonly T[],
): T[] {
  const byId = new Map(sorted.map((e) => [e.id, e]));
  const out: T[] = [];
  for (const id of shown) {
    const entry = byId.get(id);
    if (entry === undefined) continue;
    out.push(entry);
    byId.delete(id);
  }
  // What is left in the map is new since `shown`, and a Map keeps insertion (sorted) order.
  out.push(...byId.values());
  return out;
}
