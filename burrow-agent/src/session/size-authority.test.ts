import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../attention/clock.js';
import { RESUME_WINDOW_MS, type Size, SizeAuthority, type SizeViewer } from './size-authority.js';

const local = (n: number): SizeViewer => ({ id: `local-${n}`, identity: `local-${n}`, kind: 'local' });
/** Connection `conn` of the phone `device`. */
const phone = (device: string, conn: number): SizeViewer => ({
  id: `${device}-${conn}`,
  identity: device,
  kind: 'remote',
});
const sz = (cols: number, rows: number): Size => ({ cols, rows });
const DESK = sz(120, 40);
const PHONE = sz(48, 30);

function rig() {
  const clock = new ManualClock(1_000);
  const auth = new SizeAuthority({ size: sz(80, 24), now: () => clock.now() });
  const size = () => `${auth.state().size.cols}x${auth.state().size.rows}`;
  return { clock, auth, size };
}

describe('size authority (protocol/SPEC.md R-SIZE-*)', () => {
  it('R-SIZE-1: the last viewer to attach holds the size', () => {
    const { auth, size } = rig();
    expect(auth.attach(local(1), DESK, false)).toBe(true);
    expect(size()).toBe('120x40');
    expect(auth.attach(phone('p', 1), PHONE, false)).toBe(true);
    expect(auth.state()).toMatchObject({ holder: 'p', holderKind: 'remote', cause: 'attach' });
    expect(size()).toBe('48x30');
  });

  it('R-SIZE-2: fit takes the size back, from the desk or the phone', () => {
    const { auth, size } = rig();
    auth.attach(local(1), DESK, false);
    auth.attach(phone('p', 1), PHONE, false);
    expect(auth.fit('local-1', DESK)).toBe(true);
    expect(auth.state()).toMatchObject({ holder: 'local-1', cause: 'fit' });
    expect(size()).toBe('120x40');
    expect(auth.fit('p-1', sz(50, 30))).toBe(true);
    expect(size()).toBe('50x30');
    // Taking what one already holds at the same size changes nothing.
    expect(auth.fit('p-1', sz(50, 30))).toBe(false);
  });

  it("R-SIZE-3: the holder's resizes apply, anyone else's are noted for when they hold it", () => {
    const { auth, size } = rig();
    auth.attach(phone('p', 1), PHONE, false);
    auth.attach(local(1), DESK, false);
    expect(auth.resize('p-1', sz(30, 48))).toBe(false); // the phone rotated; the desk holds
    expect(size()).toBe('120x40');
    expect(auth.resize('local-1', sz(100, 30))).toBe(true);
    expect(auth.state()).toMatchObject({ cause: 'resize' });
    expect(size()).toBe('100x30');
    // The phone's noted size is what it takes back.
    auth.detach('local-1', 'detached');
    expect(size()).toBe('30x48');
  });

  it('R-SIZE-4: when the holder leaves, the most recently used remaining viewer holds, at its size', () => {
    const { auth, size } = rig();
    auth.attach(local(1), sz(100, 30), false);
    auth.attach(local(2), sz(90, 25), false);
    auth.attach(phone('p', 1), PHONE, false);
    // Typing on the first desk terminal makes it the most recent, without moving the size.
    expect(auth.used('local-1')).toBe(false);
    expect(size()).toBe('48x30');
    expect(auth.detach('p-1', 'detached')).toBe(true);
    expect(auth.state()).toMatchObject({ holder: 'local-1', cause: 'handover', holderAway: false });
    expect(size()).toBe('100x30');
    auth.detach('local-1', 'detached');
    expect(auth.state()).toMatchObject({ holder: 'local-2' });
    expect(size()).toBe('90x25');
    // The last one leaves: nobody holds, the PTY keeps its size.
    expect(auth.detach('local-2', 'detached')).toBe(true);
    expect(auth.state()).toMatchObject({ holder: null, holderKind: null });
    expect(size()).toBe('90x25');
    // A non-holder leaving changes nothing.
    auth.attach(local(3), DESK, false);
    auth.attach(local(4), sz(70, 20), false);
    expect(auth.detach('local-3', 'detached')).toBe(false);
  });

  it('R-SIZE-5: a holder phone whose connection dropped keeps the size for the resume window', () => {
    const { clock, auth, size } = rig();
    auth.attach(local(1), DESK, false);
    auth.attach(phone('p', 1), PHONE, false);
    expect(auth.detach('p-1', 'lost')).toBe(true);
    expect(auth.state()).toMatchObject({ holder: 'p', holderAway: true, cause: 'away' });
    expect(size()).toBe('48x30');
    expect(auth.deadline()).toBe(clock.now() + RESUME_WINDOW_MS);
    // Back in 4 s: it still holds, nothing moved.
    clock.advance(4_000);
    expect(auth.tick()).toBe(false);
    expect(auth.attach(phone('p', 2), PHONE, true)).toBe(true);
    expect(auth.state()).toMatchObject({ holder: 'p', holderAway: false, cause: 'return' });
    expect(size()).toBe('48x30');
    expect(auth.deadline()).toBeNull();
    // Gone for good: after the window the desk holds.
    auth.detach('p-2', 'lost');
    clock.advance(RESUME_WINDOW_MS - 1);
    expect(auth.tick()).toBe(false);
    clock.advance(1);
    expect(auth.tick()).toBe(true);
    expect(auth.state()).toMatchObject({ holder: 'local-1', cause: 'handover', holderAway: false });
    expect(size()).toBe('120x40');
  });

  it('R-SIZE-5: a phone that detached on purpose, and a local terminal, hand over at once', () => {
    const { auth, size } = rig();
    auth.attach(local(1), DESK, false);
    auth.attach(phone('p', 1), PHONE, false);
    auth.detach('p-1', 'detached');
    expect(size()).toBe('120x40');
    auth.attach(local(2), sz(90, 25), false);
    auth.detach('local-2', 'lost'); // a local terminal cannot come back as the same viewer
    expect(auth.state()).toMatchObject({ holder: 'local-1', holderAway: false });
    // A lost phone with nobody else attached: nobody holds (its return takes the size as the only viewer).
    const other = rig();
    other.auth.attach(phone('q', 1), PHONE, false);
    other.auth.detach('q-1', 'lost');
    expect(other.auth.state()).toMatchObject({ holder: null, holderAway: false });
    other.auth.attach(phone('q', 2), sz(40, 20), true);
    expect(other.auth.state()).toMatchObject({ holder: 'q' });
    expect(other.size()).toBe('40x20');
  });

  it('R-SIZE-6: the phone dropping off for 4 s does not take the size from the desk that took it last', () => {
    const { clock, auth, size } = rig();
    auth.attach(phone('p', 1), PHONE, false);
    auth.attach(local(1), DESK, false); // the desk attached last
    auth.detach('p-1', 'lost');
    expect(auth.state()).toMatchObject({ holder: 'local-1', holderAway: false });
    clock.advance(4_000);
    expect(auth.attach(phone('p', 2), PHONE, true)).toBe(false);
    expect(auth.state()).toMatchObject({ holder: 'local-1' });
    expect(size()).toBe('120x40');
    // Nor after the window, nor when a second connection of the phone overlaps the first (a network switch:
    // the old connection is closed for silence only later).
    clock.advance(60_000);
    auth.detach('p-2', 'lost');
    expect(auth.attach(phone('p', 3), PHONE, true)).toBe(false);
    expect(auth.attach(phone('p', 4), PHONE, true)).toBe(false);
    auth.detach('p-3', 'lost');
    expect(size()).toBe('120x40');
    // Opening the terminal anew on the phone is an attach: that does take it (R-SIZE-1).
    expect(auth.attach(phone('p', 5), PHONE, false)).toBe(true);
    expect(size()).toBe('48x30');
  });

  it('R-SIZE-6: a second connection of the holder phone holds at its screen size; the old one leaving changes nothing', () => {
    const { auth, size } = rig();
    auth.attach(local(1), DESK, false);
    auth.attach(phone('p', 1), PHONE, false);
    expect(auth.attach(phone('p', 2), sz(30, 48), true)).toBe(true); // rotated while reconnecting
    expect(auth.state()).toMatchObject({ holder: 'p', cause: 'return' });
    expect(size()).toBe('30x48');
    expect(auth.detach('p-1', 'lost')).toBe(false);
    expect(auth.state()).toMatchObject({ holder: 'p', holderAway: false });
  });

  it('R-SIZE-7: typing ends an away holder’s wait; typing never moves the size otherwise', () => {
    const { auth, size } = rig();
    auth.attach(local(1), DESK, false);
    auth.attach(phone('p', 1), PHONE, false);
    expect(auth.used('local-1')).toBe(false);
    expect(size()).toBe('48x30');
    auth.detach('p-1', 'lost');
    expect(auth.used('local-1')).toBe(true);
    expect(auth.state()).toMatchObject({ holder: 'local-1', cause: 'handover', holderAway: false });
    expect(auth.deadline()).toBeNull();
    expect(size()).toBe('120x40');
  });

  it('refuses what cannot be: an unknown attachment, an attachment attached twice', () => {
    const { auth } = rig();
    expect(() => auth.fit('nobody', DESK)).toThrow(RangeError);
    expect(() => auth.resize('nobody', DESK)).toThrow(RangeError);
    expect(() => auth.used('nobody')).toThrow(RangeError);
    expect(auth.detach('nobody', 'detached')).toBe(false);
    auth.attach(local(1), DESK, false);
    expect(() => auth.attach(local(1), DESK, false)).toThrow(RangeError);
    expect(() => new SizeAuthority({ size: DESK, now: () => 0, resumeWindowMs: -1 })).toThrow(RangeError);
  });

  it('invariants hold over random sequences (holder attached or away, size = its screen, resumes never steal)', () => {
    type Op =
      | { op: 'attach'; who: number; resume: boolean; cols: number }
      | { op: 'fit' | 'resize' | 'used'; who: number; cols: number }
      | { op: 'detach'; who: number; lost: boolean }
      | { op: 'wait'; ms: number };
    const who = fc.integer({ min: 0, max: 4 });
    const cols = fc.integer({ min: 20, max: 200 });
    const op: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ op: fc.constant('attach' as const), who, resume: fc.boolean(), cols }),
      fc.record({ op: fc.constantFrom('fit' as const, 'resize' as const, 'used' as const), who, cols }),
      fc.record({ op: fc.constant('detach' as const), who, lost: fc.boolean() }),
      fc.record({ op: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 20_000 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const { clock, auth } = rig();
        // Viewers 0–1 are desk terminals, 2–4 phones; each has at most one live attachment here.
        const live = new Map<number, { viewer: SizeViewer; size: Size }>();
        let conn = 0;
        const viewerFor = (n: number): SizeViewer =>
          n < 2 ? { ...local(n), id: `local-${n}-${++conn}` } : phone(`p${n}`, ++conn);
        for (const o of ops) {
          const before = auth.state();
          if (o.op === 'wait') {
            clock.advance(o.ms);
            auth.tick();
          } else if (o.op === 'attach') {
            if (live.has(o.who)) continue;
            const viewer = viewerFor(o.who);
            const size = sz(o.cols, 30);
            live.set(o.who, { viewer, size });
            auth.attach(viewer, size, o.resume);
            const after = auth.state();
            if (o.resume && before.holder !== null && before.holder !== viewer.identity)
              expect(after.holder).toBe(before.holder); // R-SIZE-6
            if (!o.resume) expect(after.holder).toBe(viewer.identity); // R-SIZE-1
          } else if (o.op === 'detach') {
            const v = live.get(o.who);
            if (!v) continue;
            live.delete(o.who);
            auth.detach(v.viewer.id, o.lost ? 'lost' : 'detached');
          } else {
            const v = live.get(o.who);
            if (!v) continue;
            const size = sz(o.cols, 30);
            if (o.op !== 'used') v.size = size;
            if (o.op === 'fit') auth.fit(v.viewer.id, size);
            else if (o.op === 'resize') auth.resize(v.viewer.id, size);
            else auth.used(v.viewer.id);
          }
          const s = auth.state();
          const holderLive = [...live.values()].find((v) => v.viewer.identity === s.holder);
          if (s.holderAway) {
            expect(holderLive).toBeUndefined();
            expect(auth.deadline()).not.toBeNull();
          } else {
            expect(auth.deadline()).toBeNull();
            // Someone attached ⇒ someone attached holds, at that viewer's screen size.
            if (live.size > 0) {
              expect(holderLive).toBeDefined();
              expect(s.size).toEqual(holderLive!.size);
            } else expect(s.holder).toBeNull();
          }
          if (s.seq === before.seq) {
            expect(s.size).toEqual(before.size);
            expect(s.holder).toBe(before.holder);
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});
