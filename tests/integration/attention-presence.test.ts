/**
 * Issue 6, real PTYs: nothing rings while a local viewer is present and focused; the completion it held
 * rings once that viewer's presence lapses to idle (alert-spec Engagement); and a program that enabled focus
 * reporting (DECSET 1004) receives CSI O / CSI I as the viewer leaves and returns.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ALERT_SETTINGS_RANGES } from '../../burrow-agent/src/attention/index.js';
import { AttentionFixture, BUSY_PROGRAM, sleep } from './attention-fixture.js';

/** The shortest presence window the settings allow (5 s), so the lapse comes soon. */
const INACTIVITY_MS = ALERT_SETTINGS_RANGES.inactivityTimeoutMs.min;

let fx: AttentionFixture;

beforeAll(() => {
  fx = AttentionFixture.create();
  fx.host.updateSettings({ pushDelayMs: 0, inactivityTimeoutMs: INACTIVITY_MS });
  fx.host.addWatchRule(BUSY_PROGRAM);
});

afterAll(async () => {
  await fx.close();
});

describe.concurrent('a present, focused viewer', () => {
  it('holds the completion, which rings when its presence lapses to idle', async () => {
    const s = await fx.shell('bash');
    const viewer = fx.attachLocal(s);
    viewer.input(new TextEncoder().encode(`${BUSY_PROGRAM}\r`));
    // Keep the viewer present (activity, not keystrokes) through the busy output and the whole settle.
    const settledBy = Date.now() + 6000 + 5000 + 1500;
    while (Date.now() < settledBy) {
      viewer.presence({ typing: true });
      expect(fx.host.view(s.id)?.ringing).toBe(false);
      await sleep(500);
    }
    expect(fx.host.view(s.id)?.engaged).toBe(true);
    expect(fx.pushesFor(s.id)).toHaveLength(0);
    const lastActivity = Date.now();
    await fx.waitFor(() => fx.host.view(s.id)?.ringing === true, INACTIVITY_MS + 3000, 'the held ring');
    expect(Date.now() - lastActivity).toBeGreaterThanOrEqual(INACTIVITY_MS - 600);
    expect(fx.host.view(s.id)?.notification?.source).toBe('watching');
    await fx.waitFor(() => fx.pushesFor(s.id).length === 1, 2000, 'the push');
    await sleep(1000);
    expect(fx.pushesFor(s.id)).toHaveLength(1);
    viewer.detach();
  });

  it('through the AttentionPort (a phone): holds a report while looked at, rings when the phone goes idle', async () => {
    const s = await fx.shell('zsh');
    fx.host.presence('phone-1', { state: 'present', focused: true, visible: true });
    fx.host.focus('phone-1', s.id);
    expect(fx.host.view(s.id)?.engaged).toBe(true);
    fx.type(s, String.raw`sleep 1.5; printf '\033]9;while you watched\007'`);
    // The OSC itself (ESC ] 9), not the echo of the typed line that spells it out.
    await fx.waitFor(() => fx.output(s.id).includes('\x1b]9;while you watched'), 5000, 'the report');
    await sleep(500);
    expect(fx.host.view(s.id)?.ringing).toBe(false);
    expect(fx.pushesFor(s.id)).toHaveLength(0);
    fx.host.presence('phone-1', { state: 'idle', focused: true, visible: true });
    await fx.waitFor(() => fx.host.view(s.id)?.ringing === true, 2000, 'the held report');
    expect(fx.host.view(s.id)?.notification?.body).toBe('while you watched');
    fx.host.viewerGone('phone-1');
  });

  it('sends focus reports to a program that asked for them as the viewer leaves and returns', async () => {
    // Raw mode: the program sees the bytes themselves, and prints each read as hex.
    const program = [
      'process.stdin.setRawMode(true);',
      "process.stdout.write('\\x1b[?1004hREADY\\n');",
      "process.stdin.on('data', (d) => process.stdout.write('GOT:' + d.toString('hex') + '\\n'));",
    ].join('');
    const s = fx.registry.create({ cwd: fx.home, command: [process.execPath, '-e', program] });
    const seen = (hex: string, after: number) => fx.output(s.id).indexOf(`GOT:${hex}`, after);
    await fx.waitFor(() => fx.output(s.id).includes('READY'), 10_000, 'the program');
    // Nobody looks yet: enabling the mode is answered with focus-out.
    await fx.waitFor(() => seen('1b5b4f', 0) >= 0, 3000, 'CSI O on enable');
    let mark = fx.output(s.id).length;
    const viewer = fx.attachLocal(s);
    await fx.waitFor(() => seen('1b5b49', mark) >= 0, 3000, 'CSI I on attach');
    mark = fx.output(s.id).length;
    viewer.detach();
    await fx.waitFor(() => seen('1b5b4f', mark) >= 0, 3000, 'CSI O on detach');
    mark = fx.output(s.id).length;
    const again = fx.attachLocal(s);
    await fx.waitFor(() => seen('1b5b49', mark) >= 0, 3000, 'CSI I on return');
    again.detach();
    // Focus reports are the terminal's, not the owner's: none of them acknowledged or rang anything.
    expect(fx.host.view(s.id)?.ringing).toBe(false);
  });
});
