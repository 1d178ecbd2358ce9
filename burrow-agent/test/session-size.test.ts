/**
 * Size authority through real sessions (protocol/SPEC.md R-SIZE-*; the rules themselves are unit-tested in
 * src/session/size-authority.test.ts): the PTY really takes the holder's size (`stty size` in bash says so),
 * every viewer is told who holds it, and a viewer behind the stream gets each change exactly where it happened.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SessionRegistry } from '../src/session/session-registry.js';
import type { Attachment, ViewerEvent } from '../src/viewer/viewer.js';
import { MAX_VIEWER_BACKLOG_BYTES } from '../src/viewer/viewer.js';
import { quietLog, RecordingViewer, until } from './helpers.js';
import { testHome } from './test-home.js';

/** Short, so a test waits it out; the real window is RESUME_WINDOW_MS. */
const WINDOW_MS = 400;
let registry: SessionRegistry;
afterEach(async () => {
  await registry?.killAll();
});

function setup() {
  const output = new Map<string, Buffer[]>();
  registry = new SessionRegistry({
    now: Date.now,
    env: { PATH: process.env.PATH, HOME: testHome() },
    defaultShell: '/bin/bash',
    log: quietLog,
    resumeWindowMs: WINDOW_MS,
  });
  registry.addTap({
    output: (id, chunk) => output.set(id, [...(output.get(id) ?? []), Buffer.from(chunk)]),
  });
  return { text: (id: string) => Buffer.concat(output.get(id) ?? []).toString() };
}

const bash = ['/bin/bash', '--norc', '--noprofile'];
const sizes = (v: RecordingViewer) =>
  v.events.filter((e): e is Extract<ViewerEvent, { type: 'size' }> => e.type === 'size');

/** Waits until `v` has its snapshot and the size state after it. */
const live = (v: RecordingViewer) => until(`${v.id} live`, () => sizes(v).length > 0);

/** Asks bash for the PTY's size with a fresh marker and waits for the answer. */
async function sttySize(a: Attachment, text: () => string, tag: string): Promise<string> {
  a.input(Buffer.from(`echo ${tag}=$(stty size)\r`));
  let found = '';
  await until(`stty ${tag}`, () => {
    found = new RegExp(`${tag}=(\\d+ \\d+)`).exec(text())?.[1] ?? '';
    return found !== '';
  });
  return found;
}

describe('size authority in a session', { timeout: 30_000 }, () => {
  it('R-SIZE-1/3/4: the last attach holds, only the holder resizes, and the size goes back when it leaves', async () => {
    const { text } = setup();
    const s = registry.create({ cwd: '/tmp', command: bash, cols: 80, rows: 24 });
    const t = () => text(s.id);
    const desk = new RecordingViewer('desk');
    const aDesk = s.attach(desk, { size: { cols: 100, rows: 30 } });
    await live(desk);
    expect(await sttySize(aDesk, t, 'A')).toBe('30 100');
    const other = new RecordingViewer('other');
    const aOther = s.attach(other, { size: { cols: 90, rows: 25 } });
    await live(other);
    expect(await sttySize(aDesk, t, 'B')).toBe('25 90');
    expect(sizes(desk).at(-1)).toMatchObject({ cols: 90, rows: 25, holder: 'local', cause: 'attach' });
    expect(sizes(other).at(-1)).toMatchObject({ cols: 90, rows: 25, holder: 'you' });
    // The desk terminal is resized: noted, not applied (it does not hold the size).
    aDesk.resize(110, 35);
    expect(await sttySize(aDesk, t, 'C')).toBe('25 90');
    // The holder leaves: the desk holds again, at the size it last reported.
    aOther.detach();
    expect(await sttySize(aDesk, t, 'D')).toBe('35 110');
    expect(sizes(desk).at(-1)).toMatchObject({ cols: 110, rows: 35, holder: 'you', cause: 'handover' });
  });

  it('R-SIZE-5/6: a phone that drops keeps the size for the window, and its resume takes nothing from the desk', async () => {
    const { text } = setup();
    const s = registry.create({ cwd: '/tmp', command: bash, cols: 80, rows: 24 });
    const t = () => text(s.id);
    const desk = new RecordingViewer('desk');
    const aDesk = s.attach(desk, { size: { cols: 100, rows: 30 } });
    await live(desk);
    const phone1 = new RecordingViewer('phone.1', 'remote', 'device-A');
    const aPhone1 = s.attach(phone1, { size: { cols: 48, rows: 20 } });
    await live(phone1);
    expect(await sttySize(aDesk, t, 'A')).toBe('20 48');
    expect(sizes(desk).at(-1)).toMatchObject({ holder: 'remote', holderAway: false });
    // The phone's connection drops: it still holds, away.
    aPhone1.detach('lost');
    expect(sizes(desk).at(-1)).toMatchObject({ cols: 48, rows: 20, holder: 'remote', holderAway: true });
    // (Not asked with stty: typing at the desk would end the hold, R-SIZE-7.)
    expect([s.info().cols, s.info().rows]).toEqual([48, 20]);
    // It is back inside the window (a resume): it holds, as before.
    const phone2 = new RecordingViewer('phone.2', 'remote', 'device-A');
    const aPhone2 = s.attach(phone2, { size: { cols: 48, rows: 20 }, resumeFrom: s.info().offset });
    await live(phone2);
    expect(sizes(desk).at(-1)).toMatchObject({ holder: 'remote', holderAway: false, cause: 'return' });
    expect(sizes(phone2).at(-1)).toMatchObject({ holder: 'you' });
    // Gone for longer than the window: the desk holds, at its own size.
    aPhone2.detach('lost');
    await until('the hand-over', () => sizes(desk).at(-1)?.holder === 'you', 5_000);
    expect(sizes(desk).at(-1)).toMatchObject({ cols: 100, rows: 30, cause: 'handover' });
    expect(await sttySize(aDesk, t, 'C')).toBe('30 100');
    // Now the desk takes the size back explicitly, and the phone drops off for a moment and resumes: the
    // desk keeps it (the reproduction: 4 s off the network used to take the size back).
    aDesk.fit(100, 30);
    const phone3 = new RecordingViewer('phone.3', 'remote', 'device-A');
    s.attach(phone3, { size: { cols: 48, rows: 20 }, resumeFrom: s.info().offset });
    await live(phone3);
    expect(sizes(phone3).at(-1)).toMatchObject({ cols: 100, rows: 30, holder: 'local' });
    expect(await sttySize(aDesk, t, 'D')).toBe('30 100');
  });

  it('R-SIZE-7: typing at the desk ends a dropped phone’s hold at once', async () => {
    const { text } = setup();
    const s = registry.create({ cwd: '/tmp', command: bash, cols: 80, rows: 24 });
    const t = () => text(s.id);
    const desk = new RecordingViewer('desk');
    const aDesk = s.attach(desk, { size: { cols: 100, rows: 30 } });
    await live(desk);
    const aPhone = s.attach(new RecordingViewer('phone.1', 'remote', 'device-A'), {
      size: { cols: 48, rows: 20 },
    });
    aPhone.detach('lost');
    // The keystrokes of the `stty` line itself take the size: the program already sees the desk's.
    expect(await sttySize(aDesk, t, 'A')).toBe('30 100');
    expect(sizes(desk).at(-1)).toMatchObject({ holder: 'you', cause: 'handover' });
  });

  it('a viewer behind the stream is told of each size change exactly where it happened', async () => {
    setup();
    const s = registry.create({
      cwd: '/tmp',
      command: [
        '/bin/bash',
        '--norc',
        '--noprofile',
        '-c',
        'while :; do echo "tick $RANDOM"; sleep 0.005; done',
      ],
      cols: 80,
      rows: 24,
    });
    const slow = new RecordingViewer('slow', 'remote', 'device-S');
    const aSlow = s.attach(slow, { size: { cols: 80, rows: 24 } });
    await until('live output', () => slow.events.some((e) => e.type === 'output'));
    slow.fakeBacklog = MAX_VIEWER_BACKLOG_BYTES + 1; // stuck: output waits in the log for it
    const desk = new RecordingViewer('desk');
    const aDesk = s.attach(desk, { size: { cols: 100, rows: 30 } });
    // Each change sits at the stream's end when it is made (nothing is read in between: this is synchronous).
    const at: number[] = [s.info().offset];
    await new Promise((r) => setTimeout(r, 50));
    aDesk.resize(90, 28);
    at.push(s.info().offset);
    await new Promise((r) => setTimeout(r, 50));
    aDesk.resize(70, 20);
    at.push(s.info().offset);
    await new Promise((r) => setTimeout(r, 50));
    slow.fakeBacklog = 0;
    aSlow.drained();
    await until('caught up past the last change', () => sizes(slow).some((e) => e.cols === 70));
    // Walk the slow viewer's stream: each size change arrives when its output has reached that offset.
    let offset = -1;
    const seen: number[] = [];
    for (const e of slow.events) {
      if (e.type === 'snapshot') offset = e.snapshot.offset;
      else if (e.type === 'output') {
        expect(e.offset).toBe(offset);
        offset += e.data.byteLength;
      } else if (e.type === 'size' && e.cause !== 'attach') seen.push(offset);
      else if (e.type === 'size' && e.holder === 'local') seen.push(offset);
    }
    expect(seen).toEqual(at);
    expect(slow.events.filter((e) => e.type === 'snapshot')).toHaveLength(1);
  });
});
