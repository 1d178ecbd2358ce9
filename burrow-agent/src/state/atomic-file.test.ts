/**
 * writeFileAtomic's write observers: every outcome is reported (success and the real errno on failure), the
 * caller still gets the original error, an observer that throws changes nothing, and observers are bounded.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_WRITE_OBSERVERS, observeWrites, writeFileAtomic } from './atomic-file.js';

const undo: Array<() => void> = [];
afterEach(() => {
  for (const u of undo.splice(0)) u();
});

describe('observeWrites', () => {
  it('hears successes and failures with their errno code; the caller still gets the error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'burrow-atomic-'));
    const heard: Array<[string, string | null]> = [];
    undo.push(
      observeWrites((p, e) => heard.push([p, e === null ? null : String((e as NodeJS.ErrnoException).code)])),
    );
    writeFileAtomic(join(dir, 'a.json'), '{}');
    expect(readFileSync(join(dir, 'a.json'), 'utf8')).toBe('{}');
    expect(() => writeFileAtomic(join(dir, 'missing', 'b.json'), '{}')).toThrow(/ENOENT/);
    expect(heard).toEqual([
      [join(dir, 'a.json'), null],
      [join(dir, 'missing', 'b.json'), 'ENOENT'],
    ]);
    // No temp file is left behind by either.
    expect(readdirSync(dir)).toEqual(['a.json']);
  });

  it('an observer that throws neither fails a good write nor hides a bad one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'burrow-atomic-'));
    undo.push(
      observeWrites(() => {
        throw new Error('observer bug');
      }),
    );
    expect(() => writeFileAtomic(join(dir, 'a.json'), 'x')).not.toThrow();
    expect(() => writeFileAtomic(join(dir, 'no', 'a.json'), 'x')).toThrow(/ENOENT/);
  });

  it('unsubscribes, and refuses more than MAX_WRITE_OBSERVERS', () => {
    const dir = mkdtempSync(join(tmpdir(), 'burrow-atomic-'));
    let n = 0;
    const off = observeWrites(() => n++);
    writeFileAtomic(join(dir, 'a'), 'x');
    off();
    writeFileAtomic(join(dir, 'a'), 'y');
    expect(n).toBe(1);
    for (let i = 0; i < MAX_WRITE_OBSERVERS; i++) undo.push(observeWrites(() => {}));
    expect(() => observeWrites(() => {})).toThrow(RangeError);
  });
});
