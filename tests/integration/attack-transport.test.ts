/**
 * Issue 8 "Hostile input", crafted attacks on the transport (DESIGN §2: the relay is untrusted for content;
 * §4.2: IK message 1 is replayable but for its timestamp, and a failed decryption closes the connection). A real
 * relay under `wrangler dev`, a real `burrow daemon` with real shells, and Pocket's client core as the phone,
 * whose socket goes through a tamper proxy that plays the hostile relay.
 *
 * 1. Replayed message 1: a copy sent while the real handshake is still in flight gets only message 2 (48 bytes
 *    it cannot open) and its replayed key confirmation is refused DECRYPT_FAILED; a copy sent later, and one
 *    sent after the daemon was SIGKILLed and restarted, is refused STALE_HANDSHAKE with no Noise byte back.
 * 2. On a live, attached, streaming connection, the proxy flips a bit in, drops, reorders, duplicates or
 *    replays a frame, in each direction. The receiver must fail closed (Burrow: close DECRYPT_FAILED; phone:
 *    closes its socket and says why), the phone must reconnect with a fresh handshake, and what reached each
 *    application is checked byte for byte: the phone's copy of a numbered stream equals exactly what the shell
 *    printed (no gap, no duplicate, no altered byte, one snapshot: resumed by offset every time), and the
 *    PTY's input — a raw-mode `cat > file` — equals exactly the keystrokes that were not tampered with, each once.
 *
 * Not covered here: tampering with the Burrow's own relay socket (its frames carry the relay's routing header,
 * which the relay parses; RL-FRAME rules are the relay's tests), and a relay that negotiates permessage-deflate
 * (the proxy strips the offer so the bit flip lands in the Noise ciphertext). A frame dropped before a silence
 * is exposed only by the next keep-alive (timed at the end). Keystrokes in a frame the relay dropped are lost:
 * phone input is at most once, never acknowledged — the test checks they are absent, not that they arrive.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BurrowConnection } from '@burrow/pocket/core';
import { CLOSE_MESSAGES, CloseCode, encodeClientMessage, Fragmenter } from '@burrow/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { POCKET_KEEPALIVE } from '../../pocket-pwa/src/core/burrow-connection.js';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { BurrowDaemon, type PairedPhone, until } from '../helpers/burrow-daemon.js';
import { daemonStatus, enrolledDaemon, figure, median, numberedStream } from '../helpers/fault-fixture.js';
import { phoneConnection } from '../helpers/phone-connection.js';
import {
  type Direction,
  startTamperProxy,
  type TamperAction,
  type TamperConnection,
  type TamperProxy,
} from '../helpers/tamper-proxy.js';

/** Reconnect fast so ten rounds fit the file's budget; the shipped backoff is the fault tests' business. */
const FAST_BACKOFF = { initialDelayMs: 100, growthFactor: 2, maxDelayMs: 1_000, jitter: 0 };
/** IK message 2 with an empty payload: e (32) + the tag of the empty payload (16). */
const MESSAGE2_BYTES = 48;
/** AEAD tag added to every transport message. */
const TAG_BYTES = 16;
/** Budget for one side to notice a tampered frame (generous: the machine is shared). */
const DETECT_BUDGET_MS = 10_000;
const PHONE_FAIL_REASON = 'a message failed to decrypt or parse';

let relay: RelayHandle;
let proxy: TamperProxy;
let daemon: BurrowDaemon;
let phone: PairedPhone;
let conn: BurrowConnection;
let stream: Awaited<ReturnType<typeof numberedStream>>;
let inputSession = '';
let inputFile = '';
let streamText = '';
let streamSnapshots = 0;
const statuses: { kind: string; reason: string; at: number }[] = [];

/** A bare WebSocket to the relay: what an attacker holding captured frames can do. */
function attackerSocket(burrowId: string) {
  const ws = new WebSocket(`${relay.wsUrl}/v1/burrows/${burrowId}/client`, { perMessageDeflate: false });
  const received: Buffer[] = [];
  ws.on('message', (d: Buffer, isBinary) => {
    if (isBinary) received.push(Buffer.from(d));
  });
  const opened = new Promise<void>((r, j) => {
    ws.once('open', () => r());
    ws.once('error', j);
  });
  const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
  return { ws, received, opened, closed };
}

function current(): TamperConnection {
  const c = proxy.connections.at(-1);
  if (!c || c.ended) throw new Error('no live phone connection through the proxy');
  return c;
}

/** The status events since `mark`, as `kind` strings (reconnecting reasons kept for the asserts). */
function since(mark: number) {
  return statuses.slice(mark);
}

async function connectedAgain(mark: number, what: string) {
  await until(
    () => since(mark).some((s) => s.kind === 'reconnecting') && conn.status.kind === 'connected',
    what,
    DETECT_BUDGET_MS * 2,
  );
}

beforeAll(async () => {
  const t0 = Date.now();
  relay = await startRelay();
  const t1 = Date.now();
  daemon = await enrolledDaemon(relay.url);
  const t2 = Date.now();
  proxy = await startTamperProxy(relay.port);
  phone = await daemon.pairPhone('attacked phone');
  figure('attack-transport setup', { relayMs: t1 - t0, daemonMs: t2 - t1, pairMs: Date.now() - t2 });
  stream = await numberedStream(daemon);
  const dir = mkdtempSync(join(tmpdir(), 'burrow-attack-input-'));
  inputFile = join(dir, 'received');
  const r = await daemon.cli(
    'new',
    '--name',
    'input',
    '--',
    '/bin/sh',
    '-c',
    `stty raw -echo && exec cat > '${inputFile}'`,
  );
  if (r.code !== 0) throw new Error(`burrow new failed: ${r.stderr}`);
  inputSession = r.stdout.trim();
  await until(() => existsSync(inputFile), 'the raw cat to start');
}, 120_000);

afterAll(async () => {
  conn?.stop();
  if (daemon !== undefined) await daemon.stop();
  await proxy?.stop();
  await relay?.stop();
});

describe('the tamper proxy itself (against a plain ws server, so the figures below mean what they say)', () => {
  it('parses masked, long and fragmented frames; flips one bit; drops, duplicates, reorders, injects', async () => {
    const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: true });
    await new Promise<void>((r) => server.once('listening', () => r()));
    const port = (server.address() as { port: number }).port;
    const atServer: Buffer[] = [];
    const serverSide = new Promise<WebSocket>((r) => server.once('connection', (ws) => r(ws)));
    const self = await startTamperProxy(port);
    try {
      const next = self.nextConnection();
      const client = new WebSocket(`ws://127.0.0.1:${self.port}/probe`); // offers permessage-deflate
      const atClient: Buffer[] = [];
      client.on('message', (d: Buffer) => atClient.push(Buffer.from(d)));
      const c = await next;
      const ws = await serverSide;
      ws.on('message', (d: Buffer) => atServer.push(Buffer.from(d)));
      await new Promise<void>((r) => client.once('open', () => r()));
      expect(client.extensions).toBe(''); // the offer was stripped: frames stay uncompressed
      expect(c.path).toBe('/probe');
      const msg = (n: number, len = 40) => Buffer.alloc(len, n);
      void c.arm('toRelay', 'flip', { match: (_p, i) => i === 0 });
      void c.arm('toRelay', 'duplicate', { match: (_p, i) => i === 1 });
      void c.arm('toRelay', 'reorder', { match: (_p, i) => i === 2 });
      void c.arm('toRelay', 'drop', { match: (_p, i) => i === 4 });
      for (let i = 0; i < 6; i++) client.send(msg(i));
      await until(() => atServer.length === 6, 'the server to get six messages');
      const bitsOff = [...atServer[0]!].reduce((n, b, k) => n + popcount(b ^ msg(0)[k]!), 0);
      expect(bitsOff).toBe(1);
      expect(atServer.slice(1).map((b) => b[0])).toEqual([1, 1, 3, 2, 5]);
      // Relay → peer: a 70 000-byte message (64-bit length), a fragmented one, an injected one.
      ws.send(msg(7, 70_000));
      ws.send(msg(8, 10), { fin: false });
      ws.send(msg(8, 10), { fin: true });
      await until(() => atClient.length === 2, 'the client to get two messages');
      c.inject('fromRelay', msg(9, 3));
      await until(() => atClient.length === 3, 'the injected message');
      expect(atClient.map((b) => [b.length, b[0]])).toEqual([
        [70_000, 7],
        [20, 8],
        [3, 9],
      ]);
      expect(c.count('fromRelay')).toBe(2); // the injection is not "seen": it did not come from the relay
      ws.close(4321);
      await until(() => c.ended, 'the close');
      expect(c.closeCodes('fromRelay')).toEqual([4321]);
      figure('tamper proxy self-test', { messagesUp: 6, flippedBits: bitsOff, longMessageBytes: 70_000 });
    } finally {
      await self.stop();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});

function popcount(x: number): number {
  let n = 0;
  for (let v = x; v !== 0; v &= v - 1) n++;
  return n;
}

describe('a replayed message 1', () => {
  it('while the real handshake is in flight: the copy gets only message 2, its replayed confirmation is refused', async () => {
    const next = proxy.nextConnection();
    conn = phoneConnection(phone, { relayUrl: proxy.url, backoff: FAST_BACKOFF });
    conn.subscribe((e) => {
      if (e.type !== 'status') return;
      statuses.push({
        kind: e.status.kind,
        reason: 'reason' in e.status ? e.status.reason : '',
        at: Date.now(),
      });
    });
    conn.start();
    const c = await next;
    // Hold the phone's key confirmation (its first transport message, `hello`) inside the proxy.
    await c.arm('toRelay', 'hold', { match: (_p, i) => i === 1 });
    const [message1, hello] = c.messages('toRelay');
    const attacker = attackerSocket(phone.pairing.burrowId);
    await attacker.opened;
    attacker.ws.send(message1!);
    await until(() => attacker.received.length === 1, 'message 2 for the copy');
    attacker.ws.send(hello!);
    const code = await attacker.closed;
    expect(code).toBe(CloseCode.DECRYPT_FAILED);
    expect(attacker.received.map((b) => b.length)).toEqual([MESSAGE2_BYTES]);
    // A fresh responder ephemeral: message 2 differs from the one the phone got, so the copy's keys differ.
    expect(Buffer.compare(attacker.received[0]!, Buffer.from(c.messages('fromRelay')[0]!))).not.toBe(0);
    c.release('toRelay');
    await until(() => conn.status.kind === 'connected' && conn.sessions.has(stream.id), 'the real phone');
    expect((await daemonStatus(daemon)).devices.connected).toBe(1);
    figure('attack replay message 1 during handshake', {
      closeCode: code,
      binaryFramesToAttacker: attacker.received.length,
      bytesToAttacker: attacker.received[0]!.length,
    });
  });

  it('later, from a new socket: refused STALE_HANDSHAKE, not one Noise byte back, the live phone untouched', async () => {
    const transcript = proxy.connections[0]!.messages('toRelay');
    const times: number[] = [];
    for (const replay of [[transcript[0]!], transcript]) {
      const attacker = attackerSocket(phone.pairing.burrowId);
      await attacker.opened;
      const started = Date.now();
      for (const m of replay) attacker.ws.send(m);
      const code = await attacker.closed;
      times.push(Date.now() - started);
      expect(code).toBe(CloseCode.STALE_HANDSHAKE);
      expect(attacker.received).toEqual([]);
    }
    expect(daemon.log).toMatch(/refused: timestamp/);
    expect(conn.status.kind).toBe('connected');
    expect((await daemonStatus(daemon)).devices.connected).toBe(1);
    figure('attack replay message 1 later', {
      closeCode: CloseCode.STALE_HANDSHAKE,
      transcriptFrames: transcript.length,
      refusedInMsMax: Math.max(...times),
      binaryFramesToAttacker: 0,
    });
  });
});

describe('a relay that tampers with the handshake', () => {
  // [direction, message index on the connection, the close code the relay forwards to the phone (null: the
  // phone itself refuses message 2 and closes)]. An altered connect message 1 is HANDSHAKE_FAILED, not
  // PAIRING_UNAVAILABLE: the Burrow tells a connect message 1 from a pair one by its (public) length.
  const cases = [
    ['toRelay', 0, CloseCode.HANDSHAKE_FAILED, 'message 1'],
    ['fromRelay', 0, null, 'message 2'],
    ['toRelay', 1, CloseCode.DECRYPT_FAILED, 'key confirmation'],
  ] as const;
  for (const [d, index, code, what] of cases) {
    it(`a flipped bit in ${what}: refused, no session, and the phone gets in on its next try`, async () => {
      const live = current();
      const next = proxy.nextConnection();
      const mark = statuses.length;
      // Make the phone reconnect at once: the answer to a request comes back altered.
      void live.arm('fromRelay', 'flip');
      const answer = conn.history(stream.id, 0, 1).catch((e: Error) => e);
      const c = await next;
      const hit = c.arm(d, 'flip', { match: (_p, i) => i === index });
      await hit;
      await until(() => c.ended, 'the tampered handshake to end', DETECT_BUDGET_MS);
      if (code === null) expect(c.closeCodes('toRelay')).toHaveLength(1);
      else expect(c.closeCodes('fromRelay')).toEqual([code]);
      // Never live on that socket: no hello from the Burrow, so nothing but handshake bytes came back.
      expect(c.count('fromRelay')).toBeLessThanOrEqual(1);
      await until(
        () => conn.status.kind === 'connected' && current() !== c && proxy.connections.length > 0,
        'the phone back',
        DETECT_BUDGET_MS * 2,
      );
      expect(await answer).toBeInstanceOf(Error);
      expect(since(mark).filter((s) => s.kind === 'closed')).toEqual([]);
      expect((await daemonStatus(daemon)).devices.connected).toBe(1);
      figure(`attack flip handshake ${what.replaceAll(' ', '-')}`, {
        closeCode: code ?? c.closeCodes('toRelay')[0]!,
        closedBy: code === null ? 'phone' : 'burrow',
      });
    });
  }
});

describe('a relay that tampers with a live, attached, streaming connection', () => {
  const encodedInputBytes = (text: string) =>
    new Fragmenter().split(
      encodeClientMessage({
        type: 'input',
        session: inputSession,
        kind: 'user',
        data: new TextEncoder().encode(text),
      }),
    )[0]!.length + TAG_BYTES;
  /** Every keystroke chunk is 5 bytes, so every input message has one ciphertext length… */
  const chunk = (letter: string, i: number) => `${letter}${String(i).padStart(3, '0')};`;
  let inputLen = 0;
  const isInput = (p: Uint8Array) => p.length === inputLen;
  let typed: ((s: string) => void) | null = null;
  let expectedInput = '';
  const received = () => readFileSync(inputFile, 'utf8');
  const detectMs: Record<Direction, number[]> = { toRelay: [], fromRelay: [] };
  const resumeMs: number[] = [];
  let round = 0;

  beforeAll(async () => {
    inputLen = encodedInputBytes(chunk('P', 0));
    // …shorter than any keep-alive ping (rid 1 makes the shortest), so the proxy hits keystrokes only.
    const pingLen =
      new Fragmenter().split(encodeClientMessage({ type: 'ping', rid: 1 }))[0]!.length + TAG_BYTES;
    expect(inputLen).toBeLessThan(pingLen);
    conn.attach(
      stream.id,
      { cols: 80, rows: 24 },
      {
        onSnapshot: () => void streamSnapshots++,
        onOutput: (d) => {
          streamText += new TextDecoder().decode(d);
        },
      },
    );
    const term = conn.attach(
      inputSession,
      { cols: 80, rows: 24 },
      { onSnapshot: () => {}, onOutput: () => {} },
    );
    typed = (s) => term.input(s);
    await until(() => streamSnapshots === 1, 'the stream attached');
    stream.start();
    await until(() => streamText.includes('L20\r\n'), 'the stream flowing');
  });

  async function typeAndSee(text: string) {
    typed!(text);
    expectedInput += text;
    await until(() => received() === expectedInput, `the PTY to receive ${text}`);
  }

  async function burrowToPhone(action: TamperAction | 'replay') {
    const c = current();
    const mark = statuses.length;
    const at = streamText.length;
    await until(() => streamText.length > at, 'output before the attack');
    let hitAt: number;
    if (action === 'replay') {
      await until(() => c.count('fromRelay') > 20, 'frames worth replaying');
      const old = c.messages('fromRelay').at(-10)!;
      hitAt = Date.now();
      c.inject('fromRelay', old);
    } else {
      await c.arm('fromRelay', action);
      hitAt = Date.now();
    }
    await until(
      () => since(mark).some((s) => s.kind === 'reconnecting'),
      'the phone to fail',
      DETECT_BUDGET_MS,
    );
    const failed = since(mark).find((s) => s.kind === 'reconnecting')!;
    expect(failed.reason).toBe(PHONE_FAIL_REASON);
    detectMs.fromRelay.push(failed.at - hitAt);
    // The phone closed its socket itself, with a close frame (not a drop).
    await until(() => c.ended, 'the tampered socket to end');
    expect(c.closeCodes('toRelay').length).toBe(1);
    expect([CloseCode.NORMAL, CloseCode.DECRYPT_FAILED]).toContain(c.closeCodes('toRelay')[0]);
    await connectedAgain(mark, 'the phone back');
    const resumedAt = streamText.length;
    await until(() => streamText.length > resumedAt, 'the stream after the reconnect');
    resumeMs.push(Date.now() - failed.at);
    expect(current()).not.toBe(c);
    return c.closeCodes('toRelay')[0]!;
  }

  async function phoneToBurrow(action: TamperAction | 'replay') {
    const i = ++round;
    await typeAndSee(chunk('P', i));
    const c = current();
    const probe = [...c.messages('toRelay')].reverse().find(isInput)!;
    const mark = statuses.length;
    const hitAt = Date.now();
    if (action === 'replay') {
      c.inject('toRelay', probe); // the probe's own ciphertext, already delivered once
    } else {
      const hit = c.arm('toRelay', action, { match: isInput });
      typed!(chunk('X', i));
      if (action === 'duplicate') expectedInput += chunk('X', i);
      await hit;
      // A dropped or held frame shows only when the next one arrives out of sequence.
      if (action === 'drop' || action === 'reorder') typed!(chunk('Y', i));
    }
    await until(
      () => since(mark).some((s) => s.kind === 'reconnecting'),
      'the Burrow to fail',
      DETECT_BUDGET_MS,
    );
    const failed = since(mark).find((s) => s.kind === 'reconnecting')!;
    detectMs.toRelay.push(failed.at - hitAt);
    expect(failed.reason).toBe(CLOSE_MESSAGES[CloseCode.DECRYPT_FAILED]);
    expect(c.closeCodes('fromRelay')).toEqual([CloseCode.DECRYPT_FAILED]);
    await connectedAgain(mark, 'the phone back');
    await typeAndSee(chunk('R', i));
    expect(received()).toBe(expectedInput);
    return CloseCode.DECRYPT_FAILED;
  }

  const actions = ['flip', 'drop', 'reorder', 'duplicate', 'replay'] as const;

  for (const action of actions) {
    it(`Burrow → phone, ${action}: the phone fails closed, reconnects, resumes by offset`, async () => {
      const code = await burrowToPhone(action);
      figure(`attack ${action} burrow-to-phone`, {
        phoneCloseCode: code,
        detectMs: detectMs.fromRelay.at(-1)!,
        resumeMs: resumeMs.at(-1)!,
      });
    });
    it(`phone → Burrow, ${action}: the Burrow closes DECRYPT_FAILED, the PTY gets no altered or extra byte`, async () => {
      const code = await phoneToBurrow(action);
      figure(`attack ${action} phone-to-burrow`, {
        burrowCloseCode: code,
        detectMs: detectMs.toRelay.at(-1)!,
      });
    });
  }

  it('after all of it: the phone holds exactly what the shell printed, and the PTY exactly what was typed', async () => {
    stream.stop();
    await until(() => /END\d+\r\n/.test(streamText), 'the stream end');
    const n = Number(/END(\d+)\r\n/.exec(streamText)![1]);
    const printed = `${Array.from({ length: n }, (_, i) => `L${i + 1}\r\n`).join('')}END${n}\r\n`;
    expect(streamText).toBe(printed);
    expect(streamSnapshots).toBe(1);
    expect(received()).toBe(expectedInput);
    // Every reconnect was a fresh handshake (a new message 1 each time), and no tampered connection lingers.
    const firsts = proxy.connections.map((c) => Buffer.from(c.messages('toRelay')[0]!).toString('hex'));
    expect(firsts.length).toBeGreaterThanOrEqual(2 * actions.length + 1);
    expect(new Set(firsts).size).toBe(firsts.length);
    expect((await daemonStatus(daemon)).devices.connected).toBe(1);
    figure('attack tamper totals', {
      rounds: 2 * actions.length,
      streamLines: n,
      streamBytes: streamText.length,
      ptyInputBytes: expectedInput.length,
      phoneSnapshots: streamSnapshots,
      detectMsMedianBurrowSide: median(detectMs.toRelay),
      detectMsWorstBurrowSide: Math.max(...detectMs.toRelay),
      detectMsMedianPhoneSide: median(detectMs.fromRelay),
      detectMsWorstPhoneSide: Math.max(...detectMs.fromRelay),
      resumeMsMedian: median(resumeMs),
      resumeMsWorst: Math.max(...resumeMs),
    });
  });

  // With nothing streaming, a dropped frame has no successor to expose it but the keep-alive: the next ping
  // (phone → Burrow) or pong (Burrow → phone) arrives out of sequence at most one ping interval later. The
  // dropped frame is a keystroke (lost, and must stay absent) or the answer to a request (which then fails).
  for (const d of ['toRelay', 'fromRelay'] as const) {
    it(`a frame dropped ${d === 'toRelay' ? 'phone → Burrow' : 'Burrow → phone'} before a silence is noticed within one keep-alive`, async () => {
      const c = current();
      await new Promise((r) => setTimeout(r, 500)); // let the reconnect's attach answers pass
      const mark = statuses.length;
      let hit: Promise<unknown>;
      let request: Promise<unknown> = Promise.resolve();
      if (d === 'toRelay') {
        hit = c.arm(d, 'drop', { match: isInput });
        typed!(chunk('S', 0));
      } else {
        hit = c.arm(d, 'drop');
        request = conn.history(stream.id, 0, 1).catch((e: Error) => e);
      }
      await hit;
      const hitAt = Date.now();
      await until(
        () => since(mark).some((s) => s.kind === 'reconnecting'),
        'the silent drop to be noticed',
        POCKET_KEEPALIVE.deadAfterMs + DETECT_BUDGET_MS,
      );
      const failed = since(mark).find((s) => s.kind === 'reconnecting')!;
      const ms = failed.at - hitAt;
      expect(ms).toBeLessThan(POCKET_KEEPALIVE.deadAfterMs);
      await connectedAgain(mark, 'the phone back');
      await typeAndSee(chunk('T', d === 'toRelay' ? 0 : 1));
      expect(received()).toBe(expectedInput);
      await request;
      figure(`attack drop-then-silence ${d === 'toRelay' ? 'phone-to-burrow' : 'burrow-to-phone'}`, {
        detectMs: ms,
        pingIntervalMs: POCKET_KEEPALIVE.pingIntervalMs,
        reason: failed.reason.replaceAll(' ', '_'),
      });
    });
  }
});

describe('a replayed message 1 after the daemon was killed and restarted', () => {
  it('is still refused STALE_HANDSHAKE: the timestamp floor is persisted', async () => {
    const message1 = proxy.connections[0]!.messages('toRelay')[0]!;
    const latest = current().messages('toRelay')[0]!;
    const stateDir = daemon.stateDir;
    const t0 = Date.now();
    await daemon.crash();
    daemon = await BurrowDaemon.start({ stateDir });
    const t1 = Date.now();
    await until(async () => (await daemonStatus(daemon)).relay.state === 'connected', 'the relay link');
    const t2 = Date.now();
    for (const m of [message1, latest]) {
      const attacker = attackerSocket(phone.pairing.burrowId);
      await attacker.opened;
      attacker.ws.send(m);
      expect(await attacker.closed).toBe(CloseCode.STALE_HANDSHAKE);
      expect(attacker.received).toEqual([]);
    }
    // The real phone, with a fresh timestamp, gets back in by itself.
    const t3 = Date.now();
    await until(() => conn.status.kind === 'connected', 'the phone after the restart', 30_000);
    expect((await daemonStatus(daemon)).devices.connected).toBe(1);
    figure('attack replay message 1 after daemon SIGKILL and restart', {
      restartMs: t1 - t0,
      linkMs: t2 - t1,
      phoneBackMs: Date.now() - t3,
      replays: 2,
      closeCode: CloseCode.STALE_HANDSHAKE,
      binaryFramesToAttacker: 0,
    });
  }, 60_000);
});
