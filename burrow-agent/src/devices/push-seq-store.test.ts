import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { StateFileError } from '../state/atomic-file.js';
import { ensureOwnerOnlyDir } from '../state/state-dir.js';
import { MAX_PUSH_SEQ_ENTRIES, PUSH_SEQ_FILE_NAME, PushSeqStore } from './push-seq-store.js';

const dir = () => {
  const d = join(mkdtempSync(join(tmpdir(), 'pseq-')), 's');
  ensureOwnerOnlyDir(d);
  return d;
};
const id = (n: number) => `d${String(n).padStart(21, '0')}`;

describe('PushSeqStore', () => {
  it('starts at 1, counts per delivery, and never reuses a number after a restart', () => {
    const d = dir();
    const a = new PushSeqStore(d);
    const keep = new Set([id(1), id(2)]);
    expect([a.reserve(id(1), keep), a.reserve(id(1), keep), a.reserve(id(2), keep)]).toEqual([1, 2, 1]);
    // A new process reads what the last one persisted before handing each number out.
    expect(new PushSeqStore(d).reserve(id(1), keep)).toBe(3);
  });

  it('drops counters of deliveries no longer in the ACL when full, keeping the ones in use', () => {
    const d = dir();
    const s = new PushSeqStore(d);
    for (let i = 0; i < MAX_PUSH_SEQ_ENTRIES; i++) s.reserve(id(i), new Set());
    const kept = new Set([id(0)]);
    expect(s.reserve(id(MAX_PUSH_SEQ_ENTRIES), kept)).toBe(1);
    const again = new PushSeqStore(d);
    expect(again.reserve(id(0), kept)).toBe(2);
    expect(again.reserve(id(5), kept)).toBe(1);
  });

  it('refuses a file it cannot trust instead of restarting the count', () => {
    const d = dir();
    writeFileSync(join(d, PUSH_SEQ_FILE_NAME), '{"version":1,"seqs":{"x":-1}}', { mode: 0o600 });
    expect(() => new PushSeqStore(d).reserve(id(1), new Set())).toThrow(StateFileError);
  });
});
