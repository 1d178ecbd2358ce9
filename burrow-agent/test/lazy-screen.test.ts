/**
 * The lazy screen's checkpoint policy (lazy-screen.ts): nothing is handed to the model per read; a checkpoint
 * comes once enough bytes wait, once output pauses, at the latest after CHECKPOINT_MAX_TICKS quiet periods of
 * output that never pauses, and before anything that needs the screen. The log keeps every byte not handed yet.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { CHECKPOINT_MAX_TICKS, LazyScreen } from '../src/screen/lazy-screen.js';
import { LocalScreenHost } from '../src/screen/local-screen-host.js';
import { OutputLog } from '../src/session/output-log.js';

const enc = new TextEncoder();
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const made: LazyScreen[] = [];
afterEach(() => {
  for (const l of made.splice(0)) l.dispose();
});

function setup(checkpointBytes: number, quietMs = 40) {
  const log = new OutputLog({
    blockBytes: 64,
    keepBytes: 64,
    maxBytes: 1 << 20,
    floor: (): number => lazy.floor,
  });
  const lazy: LazyScreen = new LazyScreen(
    log,
    new LocalScreenHost({ cols: 20, rows: 5, onProgress: () => {} }),
    {
      checkpointBytes,
      quietMs,
    },
  );
  made.push(lazy);
  const read = (s: string) => {
    log.append(enc.encode(s));
    lazy.advance();
  };
  return { log, lazy, read };
}

describe('LazyScreen', () => {
  it('hands nothing over per read; the log keeps what waits', () => {
    const { log, lazy, read } = setup(1000);
    for (let i = 0; i < 50; i++) read(`line ${i}\r\n`);
    expect(lazy.waiting).toBe(log.endOffset);
    expect(lazy.floor).toBe(0);
    // More than the log would keep for nobody: the floor holds it.
    expect(log.startOffset).toBe(0);
    expect(lazy.backlog).toBe(0);
  });

  it('checkpoints once checkpointBytes wait', () => {
    const { log, lazy, read } = setup(100);
    read('x'.repeat(60));
    expect(lazy.waiting).toBe(60);
    read('y'.repeat(60));
    expect(lazy.waiting).toBe(0);
    expect(lazy.floor).toBe(120);
    read('z'.repeat(60));
    expect(lazy.floor).toBe(120);
    expect(log.startOffset).toBeGreaterThan(0);
  });

  it('checkpoints once output pauses for quietMs', async () => {
    const { lazy, read } = setup(1 << 20, 30);
    read('hello');
    await sleep(10);
    read(' world');
    expect(lazy.waiting).toBe(11);
    await sleep(120);
    expect(lazy.waiting).toBe(0);
    expect((await lazy.snapshot()).data).toContain('hello world');
  });

  it('checkpoints output that never pauses after CHECKPOINT_MAX_TICKS quiet periods', async () => {
    const quiet = 50;
    const { lazy, read } = setup(1 << 20, quiet);
    const started = performance.now();
    let firstHandOver = -1;
    while (performance.now() - started < quiet * CHECKPOINT_MAX_TICKS * 2) {
      read('.');
      await sleep(2);
      if (lazy.waiting === 0 && firstHandOver < 0) firstHandOver = performance.now() - started;
    }
    expect(firstHandOver).toBeGreaterThan(0);
    // Never before the bound: a quiet period never passed while bytes kept coming.
    expect(firstHandOver).toBeGreaterThanOrEqual(quiet * (CHECKPOINT_MAX_TICKS - 1));
  });

  it('a snapshot, a history page, a resize and parking see every byte read before them', async () => {
    const { log, lazy, read } = setup(1 << 20, 3_600_000);
    read('\x1b[31mred\x1b[0m\r\n');
    const snap = await lazy.snapshot();
    expect(snap.offset).toBe(log.endOffset);
    expect(snap.data).toContain('red');
    for (let i = 0; i < 500; i++) read(`row ${i}\r\n`);
    const page = await lazy.history(Number.MAX_SAFE_INTEGER, 5);
    expect(page.lines.at(-1)).toMatch(/^row \d+$/);
    read('abc');
    lazy.resize(30, 6);
    expect(lazy.waiting).toBe(0);
    read('def');
    expect(await lazy.hibernate()).toBe(true);
    expect(lazy.hibernated).toBe(true);
    const parked = await lazy.snapshot();
    expect(parked.cols).toBe(30);
    expect(parked.data).toContain('abcdef');
    expect(parked.offset).toBe(log.endOffset);
  });

  it('refuses a bad policy', () => {
    const log = new OutputLog({ blockBytes: 64, keepBytes: 64, maxBytes: 128, floor: () => 0 });
    const host = new LocalScreenHost({ cols: 20, rows: 5, onProgress: () => {} });
    expect(() => new LazyScreen(log, host, { checkpointBytes: 0 })).toThrow(RangeError);
    expect(() => new LazyScreen(log, host, { quietMs: 0.5 })).toThrow(RangeError);
    host.dispose();
  });
});
