/**
 * Issue 23, real PTYs: a phone in use stays present. A phone that types into a session (through the
 * AttentionPort, as the remote API routes its INPUT) and re-sends `present` after taps is never lapsed to idle,
 * so a program that asked for focus reports hears no focus-out and nothing rings; once the phone stops, it
 * lapses within the presence window, the program hears CSI O, and what it asked for rings. Scaled: the
 * settings' shortest window (5 s), typing every 2 s for 20 s (the issue's 10 s / 3 min / 60 s is the same
 * ratio; the real-agent test in tests/agents runs it at full length).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_SETTINGS_RANGES } from '../../burrow-agent/src/attention/index.js';
import type { ViewerSink } from '../../burrow-agent/src/viewer/viewer.js';
import { AttentionFixture, sleep } from './attention-fixture.js';

const INACTIVITY_MS = ALERT_SETTINGS_RANGES.inactivityTimeoutMs.min;

let fx: AttentionFixture;

beforeAll(() => {
  fx = AttentionFixture.create();
  fx.host.updateSettings({ pushDelayMs: 0, inactivityTimeoutMs: INACTIVITY_MS });
});

afterAll(async () => {
  await fx.close();
});

/** A program that enables focus reports, prints each read as hex, and asks (OSC 9) after each `?` it reads. */
const PROGRAM = [
  'process.stdin.setRawMode(true);',
  "process.stdout.write('\\x1b[?1004hREADY\\n');",
  'process.stdin.on("data", (d) => {',
  "  process.stdout.write('GOT:' + d.toString('hex') + '\\n');",
  '  if (!d.includes(0x3f)) return;',
  // Some work past the keystroke's echo window, then the request.
  "  setTimeout(() => process.stdout.write('working on it\\n'), 1300);",
  "  setTimeout(() => process.stdout.write('\\x1b]9;Approve the deploy?\\x07'), 1600);",
  '});',
].join('');

describe('a phone in use stays present (issue 23)', () => {
  it('typing every 2 s for 20 s (window 5 s): no focus-out, nothing rings; stopping lapses it and rings', async () => {
    const s = fx.registry.create({ cwd: fx.home, command: [process.execPath, '-e', PROGRAM] });
    await fx.waitFor(() => fx.output(s.id).includes('READY'), 10_000, 'the program');
    const phone: ViewerSink = {
      id: 'phone-1',
      kind: 'remote',
      backlog: () => 0,
      deliver: () => {},
      close: () => {},
    };
    const attachment = s.attach(phone);
    fx.host.presence('phone-1', { state: 'present', focused: true, visible: true });
    fx.host.focus('phone-1', s.id);
    // The focus-in is written at once; the wait is for a loaded machine to run the program and read its echo
    // (3 s once timed out in CI, in a run 1.5x slower than usual).
    await fx.waitFor(() => fx.output(s.id).includes('GOT:1b5b49'), 10_000, 'CSI I');
    const mark = fx.output(s.id).length;
    const typedUntil = Date.now() + 20_000;
    let n = 0;
    while (Date.now() < typedUntil) {
      // What the remote API does with a phone's keystroke: presence first, then the bytes, then the ack.
      fx.host.activity('phone-1');
      attachment.input(new TextEncoder().encode(n++ % 4 === 3 ? '?' : 'k'));
      fx.host.acknowledge(s.id, 'phone-1', true);
      await sleep(2000);
      expect(fx.host.view(s.id)?.engaged).toBe(true);
    }
    expect(fx.output(s.id).indexOf('GOT:1b5b4f', mark)).toBe(-1); // never CSI O
    expect(fx.host.view(s.id)?.ringing).toBe(false); // its requests were held, never rung
    expect(fx.pushesFor(s.id)).toHaveLength(0);
    // The phone stops: one more request, then presence lapses within the window and it rings.
    const stopped = Date.now();
    attachment.input(new TextEncoder().encode('?'));
    fx.host.acknowledge(s.id, 'phone-1', true);
    await fx.waitFor(() => fx.output(s.id).indexOf('GOT:1b5b4f', mark) >= 0, INACTIVITY_MS + 3000, 'CSI O');
    expect(Date.now() - stopped).toBeLessThan(INACTIVITY_MS + 2000);
    await fx.waitFor(() => fx.host.view(s.id)?.ringing === true, 3000, 'the held request to ring');
    expect(fx.host.view(s.id)?.notification).toMatchObject({ source: 'osc9', body: 'Approve the deploy?' });
    await fx.waitFor(() => fx.pushesFor(s.id).length === 1, 3000, 'the push');
    attachment.detach();
    fx.host.viewerGone('phone-1');
  }, 60_000);
});
