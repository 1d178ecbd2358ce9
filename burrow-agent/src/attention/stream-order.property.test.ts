/**
 * Issue 13, item 3: events are applied in byte order, so how the PTY's reads cut a stream never changes what
 * rings. A random stream of real sequences (text, BEL, OSC 9 / 777 / 99 with p=close, progress, shell marks,
 * a C2 9C terminator) goes through the real parser and engine once whole and once cut at EVERY byte boundary
 * (two reads), from several starting states (fresh, just dismissed, an animating TUI, a viewer looking); the
 * rings — how many episodes opened, and the final ring / TODO / detail / status — are the same every time.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TerminalParser } from '../terminal/parser.js';
import { ManualClock } from './clock.js';
import { type AttentionEffect, AttentionEngine } from './engine.js';

const NONCE = 'order-nonce';
const ESC = '\x1b';
const BEL = '\x07';

/** One piece of a program's output, as bytes it writes; text and text reports weighted up (item 3's mix). */
const piece = fc.oneof(
  { arbitrary: fc.constantFrom('more output\r\n', 'x', 'frame\r', '漢字\n'), weight: 3 },
  { arbitrary: fc.constant(BEL), weight: 2 },
  {
    arbitrary: fc.constantFrom(
      `${ESC}]9;Second report${BEL}`,
      `${ESC}]9;Title:\nBody${ESC}\\`,
      `${ESC}]9;eight-bit\u009c`,
    ),
    weight: 3,
  },
  { arbitrary: fc.constant(`${ESC}]777;notify;Codex;Approve?${BEL}`), weight: 1 },
  {
    arbitrary: fc.constantFrom(
      `${ESC}]99;i=q:d=0;Allow${ESC}\\${ESC}]99;i=q:p=body;Bash?${ESC}\\`,
      `${ESC}]99;i=q:p=close;${ESC}\\`,
      `${ESC}]99;i=r:e=1;QXNr${ESC}\\`,
    ),
    weight: 2,
  },
  {
    arbitrary: fc.constantFrom(
      `${ESC}]9;4;1;40${BEL}`,
      `${ESC}]9;4;1;150${BEL}`,
      `${ESC}]9;4;2${BEL}`,
      `${ESC}]9;4;0${BEL}`,
    ),
    weight: 1,
  },
  {
    arbitrary: fc.constantFrom(
      `${ESC}]633;A;${NONCE}${BEL}${ESC}]633;B${BEL}`,
      `${ESC}]633;E;claude;${NONCE}${BEL}${ESC}]633;C;${NONCE}${BEL}`,
      `${ESC}]633;D;1;${NONCE}${BEL}`,
    ),
    weight: 1,
  },
);

type Start = 'fresh' | 'dismissed' | 'animating' | 'looking';
const STARTS: readonly Start[] = ['fresh', 'dismissed', 'animating', 'looking'];

interface Outcome {
  readonly episodes: number;
  readonly final: unknown;
}

/** Runs `reads` through a fresh parser and engine from `start`; the clock never moves between reads. */
function run(start: Start, reads: readonly Uint8Array[]): Outcome {
  const clock = new ManualClock(1_000_000);
  const engine = new AttentionEngine({ clock, watchRules: ['claude'] });
  const effects: AttentionEffect[] = [];
  const feed = (text: string) =>
    effects.push(...engine.onTerminalEvents('s', parser.feed(new TextEncoder().encode(text))));
  const parser = new TerminalParser({ nonce: NONCE, now: () => clock.now() });
  engine.sessionSpawned('s');
  if (start === 'dismissed') {
    feed(BEL);
    engine.verb('s', 'dismiss');
  } else if (start === 'animating') {
    for (let i = 0; i < 6; i++) {
      feed('frame\r');
      clock.advance(400);
      engine.tick();
    }
  } else if (start === 'looking') {
    engine.viewerPresence('v', { presence: 'present', focused: true, visible: true });
    engine.viewerLooking('v', 's');
  }
  const before = new Set(
    effects.flatMap((e) => (e.type === 'state' && e.view.ringing ? [e.view.episodeId] : [])),
  );
  for (const read of reads) effects.push(...engine.onTerminalEvents('s', parser.feed(read)));
  if (start === 'looking') effects.push(...engine.viewerGone('v'));
  const opened = new Set(
    effects.flatMap((e) =>
      e.type === 'state' && e.view.ringing && !before.has(e.view.episodeId) ? [e.view.episodeId] : [],
    ),
  );
  const v = engine.view('s')!;
  return {
    episodes: opened.size,
    final: {
      ringing: v.ringing,
      todo: v.todo,
      notification: v.notification,
      status: v.status,
      command: v.command,
    },
  };
}

describe('stream order (issue 13)', () => {
  it('gives the same rings however the reads cut the stream: at every byte boundary', {
    timeout: 60_000,
  }, () => {
    fc.assert(
      fc.property(fc.array(piece, { minLength: 1, maxLength: 5 }), (pieces) => {
        const bytes = new TextEncoder().encode(pieces.join(''));
        for (const start of STARTS) {
          const whole = run(start, [bytes]);
          for (let cut = 1; cut < bytes.length; cut++) {
            const split = run(start, [bytes.subarray(0, cut), bytes.subarray(cut)]);
            expect(split, `${start}, cut at ${cut} of ${JSON.stringify(pieces.join(''))}`).toEqual(whole);
          }
        }
      }),
      { seed: 0x13, numRuns: 30 },
    );
  });

  it('rings the issue reproduction after a dismiss whether or not one read holds output and report', () => {
    const stream = new TextEncoder().encode(`more output\r\n${ESC}]9;Second report${BEL}`);
    expect(run('dismissed', [stream])).toMatchObject({ episodes: 1, final: { ringing: true } });
  });
});
