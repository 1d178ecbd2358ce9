/**
 * Sessions in real PTYs running real bash: output pipeline, snapshots (plain, full-screen, after resize),
 * resume from an offset, slow viewers, exit codes. No mocks of node-pty.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CHECKPOINT_BYTES } from '../src/screen/lazy-screen.js';
import type { OutputTap, SessionActivity } from '../src/session/activity.js';
import { OUTPUT_KEEP_BYTES } from '../src/session/session.js';
import { ConflictError } from '../src/session/session-errors.js';
import { SessionRegistry } from '../src/session/session-registry.js';
import { LOCAL_VIEWER_HOLD_BYTES, MAX_VIEWER_BACKLOG_BYTES, REMOTE_STALL_MS } from '../src/viewer/viewer.js';
import { quietLog, RecordingViewer, replay, screenLines, until } from './helpers.js';
import { testHome } from './test-home.js';

class CollectingTap implements OutputTap {
  readonly chunks = new Map<string, Buffer[]>();
  readonly offsets: number[] = [];
  output(id: string, chunk: Uint8Array, offset: number): void {
    const list = this.chunks.get(id) ?? [];
    const seen = list.reduce((n, c) => n + c.byteLength, 0);
    // Taps see every chunk once, in order, contiguous.
    if (offset !== seen) throw new Error(`tap offset ${offset} != ${seen}`);
    list.push(Buffer.from(chunk));
    this.chunks.set(id, list);
  }
  bytes(id: string): Buffer {
    return Buffer.concat(this.chunks.get(id) ?? []);
  }
}

let registry: SessionRegistry;
afterEach(async () => {
  await registry?.killAll();
});

/** Wall time plus whatever a test skips ahead, or stopped (stall bounds run on the registry's clock). */
class TestClock {
  #skip = 0;
  #stoppedAt: number | null = null;
  now = () => (this.#stoppedAt ?? Date.now()) + this.#skip;
  advance(ms: number): void {
    this.#skip += ms;
  }
  stop(): void {
    this.#stoppedAt = Date.now();
  }
}

const logged: string[] = [];

function setup() {
  logged.length = 0;
  const activity: SessionActivity[] = [];
  const tap = new CollectingTap();
  const clock = new TestClock();
  registry = new SessionRegistry({
    now: clock.now,
    env: { PATH: process.env.PATH, HOME: testHome() },
    defaultShell: '/bin/bash',
    log: (level, message) => {
      logged.push(`${level}: ${message}`);
      quietLog(level, message);
    },
  });
  registry.addTap(tap);
  registry.subscribe((a) => activity.push(a));
  return { activity, tap, clock };
}

const bash = (script: string) => ['/bin/bash', '--norc', '--noprofile', '-c', script];

describe('session', { timeout: 30_000 }, () => {
  it('spawns bash with the terminal environment and echoes input back', async () => {
    const { tap, activity } = setup();
    const s = registry.create({ cwd: '/tmp', command: ['/bin/bash', '--norc', '--noprofile'] });
    const v = new RecordingViewer('v1');
    const a = s.attach(v);
    a.input(Buffer.from('echo "T=$TERM C=$COLORTERM S=$BURROW_SESSION"\r'));
    await until('env echo', () =>
      tap.bytes(s.id).toString().includes(`T=xterm-256color C=truecolor S=${s.id}`),
    );
    await until('viewer got it', () => v.text().includes(`S=${s.id}`));
    expect(activity.map((x) => x.type)).toEqual(expect.arrayContaining(['spawn', 'attach', 'input']));
  });

  it('attach snapshot reproduces plain output exactly', async () => {
    const { tap } = setup();
    const s = registry.create({
      cwd: '/tmp',
      command: bash(
        'for i in $(seq 1 300); do printf "\\e[3$((i%8))mline %d\\e[0m\\n" $i; done; printf "tail"; sleep 30',
      ),
    });
    await until('output', () => tap.bytes(s.id).toString().includes('tail'));
    const snap = await s.snapshot();
    const fromSnap = await replay(snap.data, snap.cols, snap.rows);
    const reference = await replay(tap.bytes(s.id), snap.cols, snap.rows);
    expect(screenLines(fromSnap)).toEqual(screenLines(reference));
    expect(fromSnap.buffer.active.cursorX).toBe(reference.buffer.active.cursorX);
    expect(fromSnap.buffer.active.cursorY).toBe(reference.buffer.active.cursorY);
    // Scrollback came along too.
    expect(fromSnap.buffer.active.length).toBe(reference.buffer.active.length);
    expect(snap.offset).toBe(tap.bytes(s.id).byteLength);
  });

  it('attach snapshot of a full-screen program keeps the alternate screen, cursor and modes', async () => {
    const { tap } = setup();
    // Draws like a TUI: alternate screen, cursor moves, colours, hidden cursor, application cursor keys.
    const script =
      'printf "before\\n"; printf "\\e[?1049h\\e[?1h\\e[?25l\\e[2J\\e[H"; ' +
      'for r in 1 5 10; do printf "\\e[$r;10H\\e[1;32mrow %d\\e[0m" $r; done; printf "\\e[20;3HREADY"; sleep 30';
    const s = registry.create({ cwd: '/tmp', command: bash(script), cols: 60, rows: 24 });
    await until('tui drawn', () => tap.bytes(s.id).toString().includes('READY'));
    const snap = await s.snapshot();
    const t = await replay(snap.data, snap.cols, snap.rows);
    const ref = await replay(tap.bytes(s.id), snap.cols, snap.rows);
    expect(t.buffer.active.type).toBe('alternate');
    expect(screenLines(t)).toEqual(screenLines(ref));
    expect(screenLines(t)[4]).toBe('         row 5');
    expect([t.buffer.active.cursorX, t.buffer.active.cursorY]).toEqual([7, 19]);
    expect(t.modes.applicationCursorKeysMode).toBe(true);
    // The normal screen behind it still holds what was printed before.
    expect(t.buffer.normal.getLine(0)?.translateToString(true)).toBe('before');
  });

  it('attach snapshot of vim -u NONE matches the real screen', async () => {
    const { tap } = setup();
    const s = registry.create({
      cwd: '/tmp',
      command: ['vim', '-u', 'NONE', '-N', '-n', '-c', 'call setline(1, ["alpha", "beta", "gamma"])'],
      cols: 70,
      rows: 20,
    });
    await until('vim drew', () => tap.bytes(s.id).toString().includes('gamma'));
    const a = s.attach(new RecordingViewer('vim-viewer'));
    a.input(Buffer.from('jj'));
    await new Promise((r) => setTimeout(r, 300));
    const snap = await s.snapshot();
    const t = await replay(snap.data, snap.cols, snap.rows);
    const ref = await replay(tap.bytes(s.id), snap.cols, snap.rows);
    expect(t.buffer.active.type).toBe('alternate');
    expect(screenLines(t)).toEqual(screenLines(ref));
    expect(screenLines(t).slice(0, 3)).toEqual(['alpha', 'beta', 'gamma']);
    expect(t.buffer.active.cursorY).toBe(ref.buffer.active.cursorY);
    a.input(Buffer.from('\x1b:q!\r'));
    await until('vim exit', () => !s.running);
  });

  it('resizes the PTY and the model; the latest attach takes the size and the snapshot follows', async () => {
    const { tap } = setup();
    const s = registry.create({
      cwd: '/tmp',
      command: ['/bin/bash', '--norc', '--noprofile'],
      cols: 80,
      rows: 24,
    });
    const first = new RecordingViewer('a');
    const a1 = s.attach(first);
    const second = new RecordingViewer('b');
    const a2 = s.attach(second, { size: { cols: 100, rows: 30 } });
    a2.input(Buffer.from('stty size\r'));
    await until('stty size', () => tap.bytes(s.id).toString().includes('30 100'));
    expect(first.events).toContainEqual(
      expect.objectContaining({ type: 'size', cols: 100, rows: 30, holder: 'local', cause: 'attach' }),
    );
    const snap = await s.snapshot();
    expect([snap.cols, snap.rows]).toEqual([100, 30]);
    // "Fit to this screen": the first viewer takes the size back.
    a1.fit(50, 10);
    a2.input(Buffer.from('stty size\r'));
    await until('stty size 2', () => tap.bytes(s.id).toString().includes('10 50'));
    const snap2 = await s.snapshot();
    const t = await replay(snap2.data, snap2.cols, snap2.rows);
    expect(second.events).toContainEqual(
      expect.objectContaining({ type: 'size', cols: 50, rows: 10, holder: 'local', cause: 'fit' }),
    );
    expect(first.events.filter((e) => e.type === 'size').at(-1)).toMatchObject({
      cols: 50,
      rows: 10,
      holder: 'you',
    });
    expect(t.cols).toBe(50);
    expect(screenLines(t).join('\n')).toContain('10 50');
  });

  it('resumes a reconnecting viewer from its offset with no loss or duplication', async () => {
    setup();
    // The rest of the output waits for the first viewer to be gone, so the second must get it from the log
    // (the whole stream fits in one PTY read at today's speed: without the gate v1 could see it all).
    const gate = join(mkdtempSync(join(tmpdir(), 'burrow-resume-')), 'detached');
    const s = registry.create({
      cwd: '/tmp',
      command: bash(
        `for i in $(seq 1 1000); do echo "n$i"; done; until [ -e ${gate} ]; do sleep 0.02; done; ` +
          'for i in $(seq 1001 4000); do echo "n$i"; done; sleep 30',
      ),
    });
    const v1 = new RecordingViewer('v1');
    const a1 = s.attach(v1, { resumeFrom: 0 });
    await until('some output', () => v1.text().includes('n1000\r\n'));
    a1.detach();
    writeFileSync(gate, '');
    const got = v1.text();
    const offset = got.length; // ASCII: bytes == chars
    const v2 = new RecordingViewer('v2');
    s.attach(v2, { resumeFrom: offset });
    await until('all output', () => v2.text().includes('n4000\r\n'));
    // Who holds the size first (it alone is attached: itself), then the bytes from exactly its offset.
    expect(v2.events[0]).toMatchObject({ type: 'size', holder: 'you' });
    expect(v2.events[1]).toMatchObject({ type: 'output', offset });
    const all = (got + v2.text()).split('\r\n').filter((l) => l !== '');
    expect(all).toEqual(Array.from({ length: 4000 }, (_, i) => `n${i + 1}`));
  });

  it('resyncs a remote viewer that stayed stuck, without blocking another viewer or the PTY', async () => {
    const { tap, clock } = setup();
    // ~2.3 MB: more than the log holds for anyone once the viewer gives up its claim — the keep window, and
    // whatever the screen model was not handed yet (at most CHECKPOINT_BYTES, lazy-screen.ts).
    expect(CHECKPOINT_BYTES + OUTPUT_KEEP_BYTES).toBeLessThan(2_000_000);
    const s = registry.create({
      cwd: '/tmp',
      command: bash('read _; seq -f "line %g padding padding" 1 85000; echo END; sleep 30'),
    });
    const slow = new RecordingViewer('slow', 'remote');
    const fast = new RecordingViewer('fast', 'remote');
    const aSlow = s.attach(slow);
    const aFast = s.attach(fast);
    await until('initial snapshots', () => slow.events.length > 0 && fast.events.length > 0);
    slow.fakeBacklog = MAX_VIEWER_BACKLOG_BYTES + 1; // its transport is stuck
    aFast.input(Buffer.from('\r'));
    await until('END reached the fast viewer', () => fast.text().includes('END'), 20_000);
    // The PTY was never held back: everything got through the pipeline.
    expect(tap.bytes(s.id).toString()).toContain('line 85000 ');
    const slowBytesWhileStuck = slow.text().length;
    expect(slowBytesWhileStuck).toBeLessThan(200_000);
    // Stuck past the stall bound, it no longer holds the log: once it drains it is further behind than the
    // keep window, so it gets a fresh snapshot.
    clock.advance(REMOTE_STALL_MS);
    slow.fakeBacklog = 0;
    aSlow.drained();
    await until('resync', () => slow.events.some((e) => e.type === 'snapshot' && e.reason === 'resync'));
    const resync = slow.events.find((e) => e.type === 'snapshot' && e.reason === 'resync');
    if (resync?.type !== 'snapshot') throw new Error('no resync');
    const t = await replay(resync.snapshot.data, resync.snapshot.cols, resync.snapshot.rows);
    expect(screenLines(t).join('\n')).toContain('END');
  });

  it('a remote viewer stuck for a moment catches up from the log, losing nothing', async () => {
    const { tap, clock } = setup();
    clock.stop(); // however long bash takes on a loaded machine, the viewer is stuck only "a moment"
    const s = registry.create({
      cwd: '/tmp',
      command: bash('read _; seq -f "line %g padding padding" 1 15000; echo END; sleep 30'),
    });
    const v = new RecordingViewer('phone', 'remote');
    const a = s.attach(v);
    await until('snapshot', () => v.events.length > 0);
    v.fakeBacklog = MAX_VIEWER_BACKLOG_BYTES + 1;
    a.input(Buffer.from('\r'));
    await until('END through the pipeline', () => tap.bytes(s.id).toString().includes('END'), 20_000);
    // ~430 KB went by while it was stuck: more than the keep window, well within what is held for it.
    expect(v.text()).not.toContain('END');
    v.fakeBacklog = 0;
    a.drained();
    await until('caught up', () => v.text().includes('END'));
    expect(v.events.filter((e) => e.type === 'snapshot')).toHaveLength(1);
    const first = v.events[0];
    if (first?.type !== 'snapshot') throw new Error('no snapshot first');
    expect(v.bytes()).toEqual(tap.bytes(s.id).subarray(first.snapshot.offset));
  });

  it('a local viewer that cannot keep up holds the PTY instead of losing output', async () => {
    const { tap } = setup();
    const s = registry.create({
      cwd: '/tmp',
      command: bash('read _; seq -f "line %g padding padding" 1 15000; echo END; sleep 30'),
    });
    const v = new RecordingViewer('terminal', 'local');
    const a = s.attach(v);
    await until('snapshot', () => v.events.length > 0);
    v.fakeBacklog = LOCAL_VIEWER_HOLD_BYTES + 1; // its socket is full
    const before = tap.bytes(s.id).byteLength;
    a.input(Buffer.from('\r'));
    await until('some output', () => tap.bytes(s.id).byteLength > before);
    // The PTY is paused after that read: the program is blocked on its terminal, nothing more is read, and
    // everything read was handed to the viewer.
    await new Promise((r) => setTimeout(r, 300));
    const read = tap.bytes(s.id).byteLength;
    expect(tap.bytes(s.id).toString()).not.toContain('END');
    await new Promise((r) => setTimeout(r, 200));
    expect(tap.bytes(s.id).byteLength).toBe(read);
    expect(v.bytes().byteLength).toBe(
      read - (v.events[0] as { snapshot: { offset: number } }).snapshot.offset,
    );
    v.fakeBacklog = 0;
    a.drained();
    await until('END', () => v.text().includes('END'), 20_000);
    const first = v.events[0];
    if (first?.type !== 'snapshot') throw new Error('no snapshot first');
    expect(v.bytes()).toEqual(tap.bytes(s.id).subarray(first.snapshot.offset));
  });

  it('writes a paste larger than the terminal takes at once, in order, as the program reads it', async () => {
    setup();
    const s = registry.create({ cwd: '/tmp', command: bash('stty raw -echo; echo ready; exec cat') });
    const v = new RecordingViewer('v');
    const a = s.attach(v);
    await until('ready', () => v.text().includes('ready') || v.events.some((e) => e.type === 'snapshot'));
    await new Promise((r) => setTimeout(r, 100));
    const before = v.bytes().byteLength;
    // 60 KB in one input: the pty's input queue takes ~4 KiB at a time, the rest is retried in order.
    const paste = Buffer.from(
      Array.from({ length: 6000 }, (_, i) => `${String(i).padStart(9, '0')}.`).join(''),
    );
    a.input(paste);
    await until('the whole paste echoed', () => v.bytes().byteLength - before >= paste.byteLength, 20_000);
    expect(v.bytes().subarray(before)).toEqual(paste);
  });

  it('keeps an exited session listed with its exit code until killed', async () => {
    const { activity } = setup();
    const s = registry.create({ cwd: '/tmp', command: bash('echo bye; exit 7'), name: 'doomed' });
    const v = new RecordingViewer('v');
    s.attach(v);
    await until('exit', () => !s.running);
    await until('exit event', () => v.events.some((e) => e.type === 'exit'));
    expect(v.events.at(-1)).toEqual({ type: 'exit', exitCode: 7, signal: null });
    expect(v.text()).toContain('bye');
    expect(registry.list()).toMatchObject([{ name: 'doomed', status: 'exited', exitCode: 7 }]);
    expect(activity).toContainEqual(expect.objectContaining({ type: 'exit', exitCode: 7 }));
    // Attaching to an exited session still shows its last screen and the exit.
    const late = new RecordingViewer('late');
    s.attach(late);
    await until('late exit', () => late.events.some((e) => e.type === 'exit'));
    expect(late.events[0]?.type).toBe('snapshot');
    await registry.kill('doomed');
    expect(registry.list()).toEqual([]);
    expect(late.closed).toBe('session-killed');
  });

  it('a throwing tap or listener never breaks the local pipe', async () => {
    const { tap } = setup();
    registry.addTap({
      output: () => {
        throw new Error('tap boom');
      },
    });
    registry.subscribe(() => {
      throw new Error('listener boom');
    });
    const s = registry.create({ cwd: '/tmp', command: bash('echo still-works; sleep 30') });
    const v = new RecordingViewer('v');
    s.attach(v);
    await until('output despite throwing stages', () => v.text().includes('still-works'));
    expect(tap.bytes(s.id).byteLength).toBeGreaterThan(0);
  });

  it('an idle, unwatched session parks its model and wakes on attach and output, losing nothing', async () => {
    const { tap } = setup();
    const s = registry.create({ cwd: '/tmp', command: ['/bin/bash', '--norc', '--noprofile'] });
    const v = new RecordingViewer('v');
    const a = s.attach(v);
    a.input(Buffer.from('echo one-$((1+1))\r'));
    await until('echo', () => v.text().includes('one-2'));
    // Watched: never parked.
    expect(await s.maybeHibernate(Date.now() + 60_000)).toBe(false);
    a.detach();
    expect(await s.maybeHibernate(Date.now())).toBe(false); // not quiet long enough
    const before = await s.snapshot();
    expect(await registry.sweep(Date.now() + 60_000)).toBe(1);
    // Issue 22 item 3: the daemon says when it parks.
    expect(logged.filter((l) => l.includes('screen model parked'))).toEqual([
      expect.stringMatching(
        new RegExp(`^info: session ${s.id}: screen model parked \\(quiet \\d+ s, no viewer\\)`),
      ),
    ]);
    const late = new RecordingViewer('late');
    const a2 = s.attach(late);
    await until('snapshot', () => late.events.length > 0);
    expect(late.events[0]).toMatchObject({ type: 'snapshot', snapshot: before });
    a2.input(Buffer.from('echo two-$((2+2))\r'));
    await until('echo 2', () => late.text().includes('two-4'));
    const snap = await s.snapshot();
    const t = await replay(snap.data, snap.cols, snap.rows);
    const ref = await replay(tap.bytes(s.id), snap.cols, snap.rows);
    expect(screenLines(t)).toEqual(screenLines(ref));
  });

  it('kills a running session: SIGHUP, then gone from the list', async () => {
    setup();
    const s = registry.create({ cwd: '/tmp', command: bash('sleep 100') });
    const info = await registry.kill(s.id);
    expect(info.status).toBe('exited');
    expect(registry.size).toBe(0);
  });

  it('names are sanitized, unique, and bounded', () => {
    setup();
    const a = registry.create({ cwd: '/tmp', command: bash('sleep 30') });
    const b = registry.create({ cwd: '/tmp', command: bash('sleep 30') });
    expect([a.name, b.name]).toEqual(['bash', 'bash-2']);
    expect(() => registry.rename(a.id, 'bash-2')).toThrow(ConflictError);
    expect(() => registry.create({ cwd: '/nonexistent', command: ['/bin/true'] })).toThrow(RangeError);
    expect(registry.rename(a.id, ' evil\x1b]0;x\x07\u202ename ').name).toBe('evil ]0;x name');
    expect(() => registry.get('nope')).toThrow(/no session/);
  });
});
