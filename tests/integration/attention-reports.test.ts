/**
 * Issue 6, real shells: terminal notifications printed with `printf` (OSC 9, OSC 777, OSC 99) ring with their
 * body, and a command that was seen starting rings with its exit code when it finishes unwatched (alert-spec
 * Terminal reports, COMMAND_EXIT).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttentionFixture, EXIT_3_AFTER_2S, SHELLS } from './attention-fixture.js';

let fx: AttentionFixture;

beforeAll(() => {
  fx = AttentionFixture.create();
  fx.host.updateSettings({ pushDelayMs: 0 });
});

afterAll(async () => {
  await fx.close();
});

// `sleep 1.5` first: a report inside the typed line's echo window neither rings nor is held (alert-spec).
const REPORTS = [
  {
    name: 'OSC 9',
    printf: String.raw`printf '\033]9;nine says hi\007'`,
    source: 'osc9',
    body: 'nine says hi',
  },
  {
    name: 'OSC 777',
    printf: String.raw`printf '\033]777;notify;Seven;seven says hi\007'`,
    source: 'osc777',
    body: 'seven says hi',
  },
  {
    name: 'OSC 99',
    printf: String.raw`printf '\033]99;i=k2:d=0;Kitty\033\\\033]99;i=k2:p=body;kitty says hi\033\\'`,
    source: 'osc99',
    body: 'kitty says hi',
  },
] as const;

describe.concurrent('terminal notifications from printf', () => {
  for (const r of REPORTS) {
    it(`${r.name} rings with its body`, async () => {
      const s = await fx.shell('bash');
      fx.type(s, `sleep 1.5; ${r.printf}`);
      await fx.waitFor(() => fx.host.view(s.id)?.ringing === true, 10_000, `the ${r.name} ring`);
      const view = fx.host.view(s.id)!;
      expect(view.status).toBe('ALERT_RINGING');
      expect(view.notification?.source).toBe(r.source);
      expect(view.notification?.body).toBe(r.body);
      expect(fx.host.publicState(s.id).notification?.body).toBe(r.body);
      await fx.waitFor(() => fx.pushesFor(s.id).length > 0, 2000, 'the push');
      expect(fx.pushesFor(s.id)).toEqual([
        { sessionId: s.id, episodeId: fx.host.publicState(s.id).episodeId, body: r.body },
      ]);
    });
  }
});

describe.concurrent('a seen command that exits', () => {
  for (const shell of SHELLS) {
    it(`rings with its exit code once its viewer has left (${shell})`, async () => {
      const s = await fx.shell(shell);
      // Typed while a local viewer looks: the command is seen, so its finish may ring (alert-spec COMMAND_EXIT).
      const viewer = fx.attachLocal(s);
      viewer.input(new TextEncoder().encode(`${EXIT_3_AFTER_2S[shell]}\r`));
      await fx.waitFor(() => fx.host.view(s.id)?.command !== null, 3000, 'the command to start');
      expect(fx.host.view(s.id)?.engaged).toBe(true);
      viewer.detach();
      expect(fx.host.view(s.id)?.engaged).toBe(false);
      expect(fx.host.view(s.id)?.status).toBe('COMMAND_EXIT_ARMED');
      await fx.waitFor(() => fx.host.view(s.id)?.ringing === true, 10_000, 'the exit ring');
      const n = fx.host.view(s.id)?.notification;
      expect(n?.source).toBe('exit');
      expect(n?.body).toBe(`${EXIT_3_AFTER_2S[shell]} (exit 3)`);
      expect(fx.host.publicState(s.id).notification?.source).toBe('command-exit');
      await fx.waitFor(() => fx.pushesFor(s.id).length === 1, 2000, 'the push');
    });
  }
});
