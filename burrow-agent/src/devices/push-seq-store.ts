/**
 * The last push sequence number used per delivery (DESIGN §4.4 step 2: the phone refuses an envelope whose seq
 * is not above the last it opened). Kept in `push-seq.json` beside the ACL, written through before a seq is
 * handed out, so a crash between sealing and sending skips a number but never reuses one.
 */
import { join } from 'node:path';
import * as v from 'valibot';
import { MAX_ACL_ENTRIES } from '../state/burrow-state.js';
import { JsonFileStore } from '../state/json-store.js';

export const PUSH_SEQ_FILE_NAME = 'push-seq.json';
export const PUSH_SEQ_VERSION = 1;
/** Entries kept: a revoked delivery's counter is dropped first when the file would grow past this. */
export const MAX_PUSH_SEQ_ENTRIES = MAX_ACL_ENTRIES * 2;

const PushSeqSchema = v.strictObject({
  version: v.literal(PUSH_SEQ_VERSION),
  seqs: v.pipe(
    v.record(
      v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{22}$/)),
      v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER)),
    ),
    v.check((r) => Object.keys(r).length <= MAX_PUSH_SEQ_ENTRIES, `at most ${MAX_PUSH_SEQ_ENTRIES} entries`),
  ),
});

export class PushSeqStore {
  readonly #file: JsonFileStore<typeof PushSeqSchema>;

  constructor(stateDir: string) {
    this.#file = new JsonFileStore(join(stateDir, PUSH_SEQ_FILE_NAME), PushSeqSchema, () => ({
      version: PUSH_SEQ_VERSION,
      seqs: {},
    }));
  }

  /**
   * last + 1, persisted before it is returned. `keep` names the deliveries still in the ACL: counters of
   * others are dropped when the file is full (their phones can no longer be sent to anyway).
   */
  reserve(deliveryId: string, keep: ReadonlySet<string>): number {
    const doc = this.#file.load();
    const next = (doc.seqs[deliveryId] ?? 0) + 1;
    let seqs: Record<string, number> = { ...doc.seqs, [deliveryId]: next };
    if (Object.keys(seqs).length > MAX_PUSH_SEQ_ENTRIES) {
      seqs = Object.fromEntries(Object.entries(seqs).filter(([id]) => id === deliveryId || keep.has(id)));
    }
    this.#file.save({ version: PUSH_SEQ_VERSION, seqs });
    return next;
  }
}
