/**
 * Issue 8 "Faults", bullet 3: the daemon is SIGKILLed and restarted by its service manager. The service
 * manager is tests/helpers/service-supervisor.ts running the very unit `burrow install-service` wrote (there
 * is no systemd in the container); a real relay under `wrangler dev`, the local push service, real shells,
 * and Pocket's client core as the phone. After each crash: burrow.json is intact (same enrollment, key and
 * ACL), the phone reconnects by itself (default Pocket backoff), the TODOs and the notification are back in
 * `burrow ls --json` and on the phone, nothing re-rings (no push, `ringing` false), and the sessions that
 * died with the daemon are listed as such on both — not silently gone.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BurrowConnection } from '@burrow/pocket/core';
import type { SessionEntry } from '@burrow/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchAgentPlist } from '../../burrow-agent/src/service/service-files.js';
import { generateVapidKeys } from '../../relay-worker/src/push/vapid-keys.js';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { putSubscription } from '../../relay-worker/test/relay-client.js';
import { type PairedPhone, until } from '../helpers/burrow-daemon.js';
import { phoneConnection } from '../helpers/phone-connection.js';
import { LocalPushService } from '../helpers/push-service.js';
import { buildAgent, burrowCli, ServiceSupervisor, shouldRestart } from '../helpers/service-supervisor.js';

const PUSH_DELAY_MS = 1_000;
/** How long after a restart we watch for a push that must not come (well past PUSH_DELAY_MS). */
const NO_RING_WINDOW_MS = PUSH_DELAY_MS + 2_500;
/** Crashes in this file; each one's kill → phone-directory time is a figure. */
const CRASHES = 2;

interface LsRow {
  id: string;
  name: string;
  state: string;
  diedWithDaemon?: boolean;
  ringing?: boolean;
  todo?: boolean;
  notification?: { body: string } | null;
}

let relay: RelayHandle;
let pushService: LocalPushService;
let sup: ServiceSupervisor;
let phone: PairedPhone;
let conn: BurrowConnection;
let home: string;
const figures: Record<string, number[]> = { killToListening: [], killToRelay: [], killToPhoneDirectory: [] };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const d = () => sup.daemon;
const ls = () => d().json<LsRow[]>('ls', '--json');
const status = () =>
  d().json<{ relay: { state: string }; push: { last: unknown }; enrollment: unknown; devices: unknown }>(
    'status',
    '--json',
  );
const stateFile = () => JSON.parse(readFileSync(join(d().stateDir, 'burrow.json'), 'utf8'));
const fileHas = (name: string, ...ids: string[]) => {
  try {
    const text = readFileSync(join(d().stateDir, name), 'utf8');
    return ids.every((id) => text.includes(id));
  } catch {
    return false;
  }
};

async function newSession(name: string, script: string): Promise<string> {
  const r = await d().cli('new', '--name', name, '--', '/bin/sh', '-c', script);
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

beforeAll(async () => {
  pushService = await LocalPushService.start();
  const { secret } = await generateVapidKeys();
  relay = await startRelay({
    vars: { VAPID_PRIVATE_KEY: secret, VAPID_SUBJECT: 'mailto:it@example.com', DEV_ALLOW_LOOPBACK_PUSH: '1' },
  });
  home = mkdtempSync(join(tmpdir(), 'burrow-fault-restart-'));
}, 120_000);

afterAll(async () => {
  conn?.stop();
  if (sup !== undefined) await sup.stop();
  await relay?.stop();
  await pushService?.close();
  if (home !== undefined) rmSync(home, { recursive: true, force: true });
  for (const [k, v] of Object.entries(figures)) {
    if (v.length > 0)
      console.log(`[figure] daemon SIGKILL → ${k} ms: ${v.join(', ')} (max ${Math.max(...v)})`);
  }
});

describe('daemon SIGKILL under its service manager', () => {
  it('the unit install-service writes asks for a restart on failure, and the stand-in follows it', async () => {
    const stateDir = join(home, 'state');
    const env = { HOME: home, XDG_CONFIG_HOME: join(home, '.config'), BURROW_STATE_DIR: stateDir };
    buildAgent();
    // PATH without systemctl, so a machine that has a user systemd is never touched by the test.
    const install = await burrowCli({ ...env, PATH: '/nonexistent' }).cli('install-service', '--json');
    const result = JSON.parse(install.stdout) as { path: string; file: string; activated: boolean };
    expect(result).toMatchObject({ file: 'written', activated: false });
    const unitText = readFileSync(result.path, 'utf8');
    expect(unitText).toContain('Restart=on-failure');
    sup = await ServiceSupervisor.start(result.path, {
      PATH: process.env.PATH,
      HOME: home,
      SHELL: '/bin/bash',
    });
    expect(sup.unit).toMatchObject({ restart: 'on-failure', restartSecMs: 5_000, killSignal: 'SIGTERM' });
    expect(sup.unit.environment).toEqual({ BURROW_STATE_DIR: stateDir });
    expect(shouldRestart(sup.unit.restart, { code: null, signal: 'SIGKILL' })).toBe(true);
    expect(shouldRestart(sup.unit.restart, { code: 0, signal: null })).toBe(false);
    // launchd: KeepAlive with SuccessfulExit=false is launchd's "restart unless it exited 0".
    expect(launchAgentPlist({ node: '/n', script: '/s', stateDir: null }, '/l')).toMatch(
      /<key>KeepAlive<\/key>\s*<dict>\s*<key>SuccessfulExit<\/key>\s*<false\/>/,
    );
  }, 60_000);

  it('comes back with its state, phones, TODOs and notification, shows the dead sessions, and rings nothing', async () => {
    const enrolled = await d().cli('enroll', '--relay', relay.url, '--json');
    expect(enrolled.code, enrolled.stderr).toBe(0);
    await until(async () => (await status()).relay.state === 'connected', 'the relay link');
    expect((await d().cli('settings', 'set', 'pushDelayMs', String(PUSH_DELAY_MS))).code).toBe(0);
    phone = await d().pairPhone('fault phone');
    const sub = pushService.subscribe();
    const put = await putSubscription(relay.url, phone.pairing.burrowId, phone.pairing, sub);
    expect(put.status).toBe(204);
    conn = phoneConnection(phone);
    conn.start();

    const ringer = await newSession('ringer', "sleep 1; printf '\\033]9;deploy finished\\007'; sleep 600");
    const todoer = await newSession('todoer', 'sleep 600');
    const plain = await newSession('plain', 'sleep 600');
    expect((await d().cli('todo', todoer, 'on')).code).toBe(0);
    await pushService.waitForReceived(1, 15_000);
    await until(async () => (await ls()).find((s) => s.id === ringer)?.ringing === true, 'the ring');
    // The debounced writes have landed (a crash before them loses at most their 200–250 ms).
    // …including the ring's push having gone (a ring still owed its push would ring again after a restart).
    await until(
      () => fileHas('attention.json', ringer, todoer) && !fileHas('attention.json', '"owed"'),
      'attention.json',
    );
    await until(() => fileHas('sessions.json', ringer, todoer, plain), 'sessions.json');
    await until(() => conn.sessions.has(plain) && conn.status.kind === 'connected', 'the phone directory');
    const before = { state: stateFile(), status: await status(), pushes: pushService.received.length };
    expect(before.pushes).toBe(1);
    const ids = { ringer, todoer, plain };

    for (let crash = 1; crash <= CRASHES; crash++) {
      const pid = sup.pid;
      const t0 = Date.now();
      sup.kill('SIGKILL');
      await sup.waitForRestarts(crash, 30_000);
      await sup.waitUntilListening();
      figures.killToListening!.push(Date.now() - t0);
      expect(sup.pid).not.toBe(pid);
      expect(sup.restarts.at(-1)).toMatchObject({ code: null, signal: 'SIGKILL' });
      // RestartSec=5 was honoured.
      const last = sup.restarts.at(-1)!;
      expect(last.restartedAt! - last.exitedAt).toBeGreaterThanOrEqual(sup.unit.restartSecMs - 50);

      await until(async () => (await status()).relay.state === 'connected', 'the relay link again', 30_000);
      figures.killToRelay!.push(Date.now() - t0);
      // A re-ring would push at its episode start + pushDelayMs; from here on the relay could carry it.
      const quietUntil = Date.now() + NO_RING_WINDOW_MS;
      const died = (e: SessionEntry | undefined) => e?.exited === true && e.exitCode === null;
      await until(
        () =>
          conn.status.kind === 'connected' &&
          [ringer, todoer, plain].every((id) => died(conn.sessions.get(id))),
        'the phone to reconnect and list the dead sessions',
        60_000,
      );
      figures.killToPhoneDirectory!.push(Date.now() - t0);

      // The state file is intact: same enrollment, static key and ACL; the daemon says the same.
      expect(stateFile()).toEqual(before.state);
      const after = await status();
      expect(after.enrollment).toEqual(before.status.enrollment);
      expect((after.devices as { paired: number }).paired).toBe(1);

      // burrow ls: all three listed as died with the daemon; TODOs and the notification are back, no ring.
      const rows = new Map((await ls()).map((r) => [r.id, r]));
      for (const id of Object.values(ids)) {
        expect(rows.get(id), id).toMatchObject({ state: 'exited', diedWithDaemon: true });
      }
      expect(rows.get(ringer)).toMatchObject({
        todo: true,
        ringing: false,
        notification: { body: 'deploy finished' },
      });
      expect(rows.get(todoer)).toMatchObject({ todo: true, ringing: false });
      expect(rows.get(plain)?.todo ?? false).toBe(false);
      const table = await d().cli('ls');
      expect(table.stdout).toMatch(/plain\s+died with daemon/);

      // The phone: the same.
      const onPhone = conn.sessions.get(ringer)!;
      expect(onPhone).toMatchObject({ todo: true, ringing: false, ringingSince: null, episodeId: null });
      expect(onPhone.notification?.body).toBe('deploy finished');
      expect(conn.sessions.get(todoer)).toMatchObject({ todo: true, ringing: false });
      // exited with no exit code is what Pocket's list words as "ended when Burrow restarted"
      // (pocket-pwa/src/list/session-text.ts exitText, unit-tested there).
      expect(conn.sessions.get(plain)).toMatchObject({ exited: true, exitCode: null, todo: false });

      // Nothing re-rings: no push well past the push delay (counted from the relay link being back; a ring
      // before that could not push, but would still show as `ringing`, checked above and below).
      await sleep(Math.max(0, quietUntil - Date.now()));
      expect(pushService.received.length).toBe(before.pushes);
      expect((await status()).push.last).toBeNull();
      expect([...conn.sessions.values()].some((e) => e.ringing)).toBe(false);
    }

    // The owner clears a dead session, from the computer and from the phone (Pocket's "Remove" = clear);
    // a new one works on the restarted daemon and reaches the phone.
    expect((await d().cli('kill', plain)).code).toBe(0);
    await until(() => !conn.sessions.has(plain), 'the phone to drop the cleared session');
    await until(() => !fileHas('sessions.json', plain), 'sessions.json to forget it');
    await conn.clear(todoer);
    await until(() => !conn.sessions.has(todoer), 'the phone to remove a session that died with the daemon');
    const fresh = await newSession('fresh', 'sleep 600');
    await until(() => conn.sessions.get(fresh)?.exited === false, 'the new session on the phone');
    console.log(
      `[figure] after ${CRASHES} SIGKILLs: pushes ${pushService.received.length} (1 before the crashes), ` +
        `restarts ${sup.restarts.length}, sessions listed as died ${Object.keys(ids).length} of ${Object.keys(ids).length}`,
    );
  }, 150_000);
});
