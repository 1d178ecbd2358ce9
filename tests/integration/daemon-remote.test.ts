/**
 * A REAL `burrow daemon` process (built CLI, temp BURROW_STATE_DIR) against a real relay under `wrangler dev`,
 * and Pocket's own client core as the phone: `burrow enroll`, `burrow pair --yes` while the phone pairs, the
 * phone connects, lists, attaches and reads back `echo hello`; `burrow devices --json`, `burrow status
 * --json`; the phone registers a Web Push subscription (local push service) and `burrow push test` reaches
 * it with a sealed envelope the phone opens, seq 1 then 2; then `burrow devices revoke` drops the phone.
 * One relay for the whole file.
 */
import { type ChildProcess, execFile, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyPairFromPrivate, openPushEnvelope } from '@burrow/crypto';
import {
  MemoryPairingStorage,
  type PairingRecord,
  pairWithOffer,
  parsePairingLink,
  rawClientPrivateKey,
} from '@burrow/pocket/core';
import { decodeBase64url } from '@burrow/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testHome } from '../../burrow-agent/test/test-home.js';
import { generateVapidKeys } from '../../relay-worker/src/push/vapid-keys.js';
import { REPO_ROOT, type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { putSubscription } from '../../relay-worker/test/relay-client.js';
import { nodeSocketFactory } from '../helpers/node-socket.js';
import { phoneConnection } from '../helpers/phone-connection.js';
import { LocalPushService } from '../helpers/push-service.js';

const AGENT = join(REPO_ROOT, 'burrow-agent');
const BIN = join(AGENT, 'bin', 'burrow.js');
/** One CLI call's budget: `pair` waits for the phone, the rest answer at once. */
const CLI_TIMEOUT_MS = 30_000;

interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function cli(env: NodeJS.ProcessEnv, ...args: string[]): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env, timeout: CLI_TIMEOUT_MS }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

const until = async (cond: () => boolean | Promise<boolean>, what: string, ms = 20_000) => {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

async function statusJson(env: NodeJS.ProcessEnv) {
  const r = await cli(env, 'status', '--json');
  return JSON.parse(r.stdout) as {
    running: boolean;
    relay: { state: string; text: string };
    enrollment: { enrolled: boolean; relayUrl: string | null; burrowId: string | null };
    devices: { paired: number; connected: number };
    push: { last: { outcome: string } | null; warnings: { text: string }[] };
  };
}

let relay: RelayHandle;
let pushService: LocalPushService;
let daemon: ChildProcess;
let daemonLog = '';
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  // The daemon runs the built CLI, exactly as installed; tsc -b also builds protocol and crypto.
  const tsc = join(REPO_ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const built = spawnSync(process.execPath, [tsc, '-b', join(AGENT, 'tsconfig.json')], { encoding: 'utf8' });
  if (!existsSync(join(AGENT, 'dist', 'cli', 'main.js'))) throw new Error(`build failed: ${built.stdout}`);
  pushService = await LocalPushService.start();
  const { secret } = await generateVapidKeys();
  relay = await startRelay({
    vars: { VAPID_PRIVATE_KEY: secret, VAPID_SUBJECT: 'mailto:it@example.com', DEV_ALLOW_LOOPBACK_PUSH: '1' },
  });
  const stateDir = join(mkdtempSync(join(tmpdir(), 'burrow-daemon-it-')), 'state');
  env = {
    PATH: process.env.PATH,
    HOME: testHome(),
    SHELL: '/bin/bash',
    BURROW_STATE_DIR: stateDir,
  };
  daemon = spawn(process.execPath, [BIN, 'daemon'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  daemon.stderr!.on('data', (d: Buffer) => {
    daemonLog = (daemonLog + d.toString()).slice(-64_000);
  });
  await until(() => daemonLog.includes('listening on') || daemon.exitCode !== null, 'the daemon');
  if (daemon.exitCode !== null) throw new Error(`daemon exited: ${daemonLog}`);
});

afterAll(async () => {
  if (daemon !== undefined && daemon.exitCode === null) {
    const exited = new Promise((r) => daemon.once('exit', r));
    daemon.kill('SIGTERM');
    await exited;
  }
  await relay?.stop();
  await pushService?.close();
});

describe('a real daemon, remote side', () => {
  const storage = new MemoryPairingStorage();
  let pairing: PairingRecord;

  it('status before enrolling says not configured', async () => {
    const s = await statusJson(env);
    expect(s).toMatchObject({
      running: true,
      relay: { state: 'not-configured' },
      enrollment: { enrolled: false, relayUrl: null },
      devices: { paired: 0, connected: 0 },
    });
    const pair = await cli(env, 'pair', '--yes');
    expect(pair.code).not.toBe(0);
    expect(pair.stderr).toContain('not enrolled');
  });

  it('burrow enroll goes through the daemon, which connects to the relay', async () => {
    const r = await cli(env, 'enroll', '--relay', relay.url, '--json');
    expect(r.code, r.stderr).toBe(0);
    const enrolled = JSON.parse(r.stdout) as { burrowId: string; relayUrl: string };
    expect(enrolled.relayUrl).toBe(relay.url);
    await until(async () => (await statusJson(env)).relay.state === 'connected', 'the relay link');
    expect((await statusJson(env)).enrollment).toEqual({
      enrolled: true,
      relayUrl: relay.url,
      burrowId: enrolled.burrowId,
    });
  });

  it('burrow pair --yes prints a link; the phone pairs with it and both see the same code', async () => {
    const pair = spawn(process.execPath, [BIN, 'pair', '--yes', '--label', 'it phone'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    pair.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const exited = new Promise<number | null>((r) => pair.once('exit', (c) => r(c)));
    await until(() => /#pair=\S+/.test(out), 'the pairing link');
    const link = /(http\S+#pair=\S+)/.exec(out)![1]!;
    let phoneCode = '';
    pairing = await pairWithOffer({
      offer: parsePairingLink(link),
      socketFactory: nodeSocketFactory(),
      storage,
      label: 'it phone',
      platform: 'node',
      userAgent: 'vitest',
      onCode: (c) => {
        phoneCode = c;
      },
    });
    expect(await exited).toBe(0);
    expect(out).toContain(`Code: ${phoneCode}`);
    expect(out).toContain('A phone wants to pair: "it phone"');
    expect(out).toMatch(/Paired "it phone" \(device [A-Za-z0-9_-]{16}\)/);
  });

  it('the phone connects, lists, attaches, types echo hello and reads it back; devices and status agree', async () => {
    const created = await cli(
      env,
      'new',
      '--name',
      'it-shell',
      '--json',
      '--',
      '/bin/bash',
      '--norc',
      '--noprofile',
    );
    expect(created.code, created.stderr).toBe(0);
    const session = JSON.parse(created.stdout) as { id: string };
    const conn = phoneConnection({ pairing, storage });
    conn.start();
    try {
      await until(() => conn.sessions.has(session.id), 'the directory');
      expect(conn.sessions.get(session.id)?.name).toBe('it-shell');
      let text = '';
      let snapshots = 0;
      const term = conn.attach(
        session.id,
        { cols: 80, rows: 24 },
        {
          onSnapshot: () => {
            snapshots++;
          },
          onOutput: (d) => {
            text += new TextDecoder().decode(d);
          },
        },
      );
      await until(() => snapshots === 1, 'the attach snapshot');
      term.input('echo hel""lo\r');
      await until(() => text.includes('hello'), 'echo output');

      const devices = await cli(env, 'devices', '--json');
      expect(devices.code, devices.stderr).toBe(0);
      const rows = JSON.parse(devices.stdout) as Record<string, unknown>[];
      expect(rows).toEqual([
        expect.objectContaining({
          deviceId: pairing.deviceId,
          label: 'it phone',
          connected: true,
          // The phone never sent a Web Push subscription: the relay's list says so.
          subscribed: false,
        }),
      ]);
      expect(JSON.stringify(rows)).not.toContain('psk');

      const s = await statusJson(env);
      expect(s).toMatchObject({
        relay: { state: 'connected', text: 'connected' },
        enrollment: { enrolled: true },
        devices: { paired: 1, connected: 1 },
      });

      const ls = JSON.parse((await cli(env, 'ls', '--json')).stdout) as Record<string, unknown>[];
      expect(ls.find((x) => x.id === session.id)).toMatchObject({
        name: 'it-shell',
        state: 'running',
        exited: false,
        ringing: false,
        todo: false,
        awaited: false,
      });

      // A device without a subscription: the test push says exactly that, and exits 1.
      const none = await cli(env, 'push', 'test', '--json');
      expect(none.code).toBe(1);
      expect(JSON.parse(none.stdout)).toMatchObject({
        outcome: 'no_subscriptions',
        targets: 1,
        delivered: 0,
      });
      const warned = await statusJson(env);
      expect(warned.push.last).toMatchObject({ outcome: 'no_subscriptions' });
      expect(warned.push.warnings.at(-1)?.text).toContain('no paired device has push turned on');

      // The phone's settings screen goes through the daemon too (remote API push-status).
      expect(await conn.pushStatus()).toEqual({ pushEnabled: true, subscribed: false });

      // The phone subscribes (as Pocket does after the permission prompt); the relay lists it.
      const sub = await putSubscription(relay.url, pairing.burrowId, pairing, pushService.subscribe());
      expect(sub.status).toBe(204);
      const listed = JSON.parse((await cli(env, 'devices', '--json')).stdout) as { subscribed: boolean }[];
      expect(listed[0]?.subscribed).toBe(true);
      expect(await conn.pushStatus()).toEqual({ pushEnabled: true, subscribed: true });
      // The refused push above used seq 1 (reserved before sending, never reused): these are 2 and 3.
      for (const [i, seq] of [2, 3].entries()) {
        const push = await cli(env, 'push', 'test', '--json');
        expect(push.code, push.stdout + push.stderr).toBe(0);
        expect(JSON.parse(push.stdout)).toMatchObject({ outcome: 'delivered', targets: 1, delivered: 1 });
        const received = await pushService.waitForReceived(i + 1, 10_000);
        const opened = openPushEnvelope(received[i]!.envelope!, {
          burrowId: decodeBase64url(pairing.burrowId),
          deliveryId: pairing.deliveryId,
          senderStaticKey: decodeBase64url(pairing.burrowPublicKey),
          recipientStaticKeyPair: keyPairFromPrivate(rawClientPrivateKey(pairing)),
          psk: decodeBase64url(pairing.psk),
          lastSeenSeq: seq - 1,
        });
        expect(opened.seq).toBe(seq);
        const note = JSON.parse(new TextDecoder().decode(opened.payload)) as Record<string, unknown>;
        expect(note).toMatchObject({
          sessionId: session.id,
          label: 'it-shell',
          body: 'Test notification from your Burrow',
        });
      }
      // The phone's own "send a test" (remote API push-test): seq 4, the same sealed path.
      expect(await conn.pushTest()).toEqual({ outcome: 'delivered', targets: 1, delivered: 1 });
      expect((await pushService.waitForReceived(3, 10_000)).length).toBe(3);

      // A real ring: a terminal notification (OSC 9) with the push delay at 0 → the attention host's push-due
      // hook → PushSender → the phone gets the fixed "report" body (never the terminal's own text).
      expect((await cli(env, 'settings', 'set', 'pushDelayMs', '0')).code).toBe(0);
      conn.stop();
      const ringer = await cli(
        env,
        'new',
        '--name',
        'ringer',
        '--',
        '/bin/sh',
        '-c',
        "sleep 1; printf '\\033]9;secret build text\\007'; sleep 30",
      );
      const ringerId = ringer.stdout.trim();
      const rang = await pushService.waitForReceived(4, 30_000);
      const ringOpened = openPushEnvelope(rang[3]!.envelope!, {
        burrowId: decodeBase64url(pairing.burrowId),
        deliveryId: pairing.deliveryId,
        senderStaticKey: decodeBase64url(pairing.burrowPublicKey),
        recipientStaticKeyPair: keyPairFromPrivate(rawClientPrivateKey(pairing)),
        psk: decodeBase64url(pairing.psk),
        lastSeenSeq: 4,
      });
      const ringNote = JSON.parse(new TextDecoder().decode(ringOpened.payload)) as Record<string, unknown>;
      // The ring's words are the push's body (issue 23), sealed to this phone: the push service's copy, all
      // the relay and the push service ever see, does not hold them.
      expect(ringNote).toMatchObject({ sessionId: ringerId, label: 'ringer', body: 'secret build text' });
      expect(Buffer.from(rang[3]!.envelope!).toString('latin1')).not.toContain('secret build text');
      conn.start();
      await until(() => conn.status.kind === 'connected', 'reconnect');

      let revoked = 0;
      conn.subscribe((e) => {
        if (e.type === 'revoked') revoked++;
      });
      const revoke = await cli(env, 'devices', 'revoke', pairing.deviceId);
      expect(revoke.code, revoke.stdout + revoke.stderr).toBe(0);
      expect(revoke.stdout).toContain(`Revoked ${pairing.deviceId}; closed 1 live connection.`);
      await until(() => revoked === 1, 'the revocation close');
      expect(JSON.parse((await cli(env, 'devices', '--json')).stdout)).toEqual([]);
      expect((await statusJson(env)).devices).toEqual({ paired: 0, connected: 0 });
    } finally {
      conn.stop();
    }
  });

  it('a test push with no devices says so', async () => {
    const push = await cli(env, 'push', 'test');
    expect(push.code).toBe(1);
    expect(push.stdout).toContain('No paired devices');
  });

  it('SIGTERM shuts the daemon down cleanly', async () => {
    const exited = new Promise<number | null>((r) => daemon.once('exit', (c) => r(c)));
    daemon.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(daemonLog).toContain('stopped');
    expect((await cli(env, 'status')).code).toBe(3);
  });
});
