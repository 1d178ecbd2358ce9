/**
 * The control socket: handshake both ways, rejection of a wrong token, a bad proof, an oversized frame and a
 * client that never finishes; modes of the socket, its directory and the token file; requests and an attach
 * stream over the real socket.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, statSync } from 'node:fs';
import { createConnection, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ControlClient, ControlRequestError, DaemonNotRunningError } from '../src/control/control-client.js';
import type { StatusResult } from '../src/control/control-messages.js';
import { controlSocketPath } from '../src/control/control-paths.js';
import { ControlServer, DaemonRunningError } from '../src/control/control-server.js';
import { loadOrCreateControlToken, tokenPath } from '../src/control/control-token.js';
import {
  encodeFrame,
  encodeJson,
  FrameDecoder,
  FrameType,
  MAX_HANDSHAKE_FRAME_BYTES,
  parseJsonPayload,
} from '../src/control/frame-codec.js';
import { clientProof, newNonce } from '../src/control/handshake.js';
import type { Logger } from '../src/session/activity.js';
import { SessionRegistry } from '../src/session/session-registry.js';
import { ensureOwnerOnlyDir } from '../src/state/state-dir.js';
import { until } from './helpers.js';

let stateDir: string;
let server: ControlServer;
let registry: SessionRegistry;
let token: Buffer;
let logs: string[];
const status = (): StatusResult => ({
  pid: 1,
  startedAt: 0,
  uptimeMs: 0,
  version: 't',
  stateDir,
  sessions: { total: 0, running: 0, exited: 0 },
  relay: { state: 'not-configured', text: 'not enrolled' },
  enrollment: { enrolled: false, relayUrl: null, burrowId: null },
  devices: { paired: 0, connected: 0 },
  push: { last: null, warnings: [] },
});

beforeEach(async () => {
  stateDir = join(mkdtempSync(join(tmpdir(), 'bc-')), 's');
  ensureOwnerOnlyDir(stateDir);
  token = loadOrCreateControlToken(stateDir);
  logs = [];
  const log: Logger = (l, m) => logs.push(`${l} ${m}`);
  registry = new SessionRegistry({
    now: Date.now,
    env: { PATH: process.env.PATH },
    defaultShell: '/bin/sh',
    log,
  });
  server = new ControlServer({
    socketPath: controlSocketPath(stateDir),
    token,
    registry,
    status,
    log,
    handshakeBudgetMs: 300,
  });
  await server.listen();
});

afterEach(async () => {
  await server.close();
  await registry.killAll();
});

/** A raw client: returns the socket, a frame reader, and the challenge nonce. */
async function raw(): Promise<{ sock: Socket; frames: unknown[]; closed: Promise<void>; nonce: string }> {
  const sock = createConnection(controlSocketPath(stateDir));
  const d = new FrameDecoder(1 << 20);
  const frames: unknown[] = [];
  sock.on('data', (c) => {
    for (const f of d.push(c)) frames.push(parseJsonPayload(f.payload));
  });
  const closed = new Promise<void>((r) => sock.on('close', () => r()));
  sock.on('error', () => {});
  await until('challenge', () => frames.length > 0);
  return { sock, frames, closed, nonce: (frames[0] as { nonce: string }).nonce };
}

describe('control socket', { timeout: 30_000 }, () => {
  it('lives in a 0700 directory; socket and token are owner-only; the token is 32 random bytes', () => {
    const sock = controlSocketPath(stateDir);
    expect(statSync(dirname(sock)).mode & 0o777).toBe(0o700);
    expect(statSync(sock).mode & 0o777).toBe(0o600);
    expect(statSync(tokenPath(stateDir)).mode & 0o777).toBe(0o600);
    expect(token.byteLength).toBe(32);
    expect(loadOrCreateControlToken(stateDir)).toEqual(token);
  });

  it('completes the handshake with the right token and serves requests', async () => {
    const c = await ControlClient.connect(controlSocketPath(stateDir), token);
    expect(await c.request('status', {})).toMatchObject({ version: 't' });
    const created = (await c.request('create', {
      cwd: '/tmp',
      command: ['/bin/sh', '-c', 'sleep 30'],
      name: 'x',
    })) as {
      session: { id: string };
    };
    expect(await c.request('list', {})).toMatchObject({ sessions: [{ name: 'x' }] });
    await expect(c.request('kill', { session: 'nope' })).rejects.toMatchObject({ code: 'not-found' });
    await expect(c.request('rename', { session: created.session.id, name: '\x1b' })).rejects.toBeInstanceOf(
      ControlRequestError,
    );
    c.close();
  });

  it('rejects a client with the wrong token, and the client refuses nothing it cannot verify', async () => {
    await expect(ControlClient.connect(controlSocketPath(stateDir), randomBytes(32))).rejects.toThrow(
      /wrong token|closed/,
    );
    await until('log', () => logs.some((l) => l.includes('did not verify')));
    // No secret in the log line.
    expect(logs.join('\n')).not.toContain(token.toString('base64url'));
  });

  it('rejects a bad proof, and a proof for another nonce (no replay)', async () => {
    const a = await raw();
    a.sock.write(
      encodeJson({ type: 'hello', v: 1, nonce: newNonce(), proof: Buffer.alloc(32).toString('base64url') }),
    );
    await a.closed;
    expect(a.frames).toHaveLength(1);
    const b = await raw();
    const replayed = clientProof(token, newNonce()); // valid token, but not over this connection's nonce
    b.sock.write(encodeJson({ type: 'hello', v: 1, nonce: newNonce(), proof: replayed }));
    await b.closed;
    expect(b.frames).toHaveLength(1);
  });

  it('answers a correct hello with a welcome that proves the token back (domain-separated)', async () => {
    const a = await raw();
    const mine = newNonce();
    a.sock.write(encodeJson({ type: 'hello', v: 1, nonce: mine, proof: clientProof(token, a.nonce) }));
    await until('welcome', () => a.frames.length === 2);
    const welcome = a.frames[1] as { proof: string };
    expect(welcome.proof).not.toBe(clientProof(token, mine));
    a.sock.destroy();
  });

  it('drops an oversized frame during the handshake without reading it', async () => {
    const a = await raw();
    a.sock.write(encodeFrame(FrameType.Json, Buffer.alloc(MAX_HANDSHAKE_FRAME_BYTES + 1, 0x20)));
    await a.closed;
    expect(logs.some((l) => l.includes('outside'))).toBe(true);
  });

  it('drops a client that never finishes the handshake', async () => {
    const a = await raw();
    const t0 = Date.now();
    await a.closed;
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    expect(logs.some((l) => l.includes('timed out'))).toBe(true);
  });

  it('drops a first frame that is not a hello, and random garbage (property, server stays up)', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 64 }), async (bytes) => {
        const a = await raw();
        a.sock.write(bytes);
        a.sock.end();
        await a.closed;
      }),
      { seed: 3, numRuns: 20 },
    );
    const c = await ControlClient.connect(controlSocketPath(stateDir), token);
    expect(await c.request('list', {})).toEqual({ sessions: [] });
    c.close();
  });

  it('streams an attached session: snapshot, output with offsets, input, exit', async () => {
    const c = await ControlClient.connect(controlSocketPath(stateDir), token);
    await c.request('create', { cwd: '/tmp', command: ['/bin/sh'], name: 'sh' });
    c.close();
    const a = await ControlClient.connect(controlSocketPath(stateDir), token);
    let text = '';
    let next = -1;
    const events: unknown[] = [];
    await a.attach(
      { session: 'sh', cols: 90, rows: 20 },
      {
        snapshot: (h) => {
          next = h.offset;
        },
        output: (offset, data) => {
          expect(offset).toBe(next);
          next = offset + data.byteLength;
          text += Buffer.from(data).toString();
        },
        event: (e) => events.push(e),
        end: () => {},
      },
    );
    const presence: unknown[] = [];
    registry.subscribe((act) => {
      if (act.type === 'presence' || act.type === 'resize')
        presence.push(act.type === 'presence' ? act.presence : [act.cols, act.rows]);
    });
    a.send({ type: 'presence', focused: true });
    a.send({ type: 'typing' });
    a.send({ type: 'resize', cols: 70, rows: 15 });
    await until('presence reported', () => presence.length === 3);
    expect(presence).toEqual([{ focused: true }, { typing: true }, [70, 15]]);
    a.input(Buffer.from('echo hi-$((6*7)); exit 3\r'));
    await until('exit', () => events.some((e) => (e as { event: string }).event === 'exit'));
    expect(text).toContain('hi-42');
    expect(events).toContainEqual({ event: 'exit', exitCode: 3, signal: null });
  });

  it('refuses to start a second server on a live socket; once closed, clients hear "not running"', async () => {
    const again = new ControlServer({
      socketPath: controlSocketPath(stateDir),
      token,
      registry,
      status,
      log: () => {},
    });
    await expect(again.listen()).rejects.toBeInstanceOf(DaemonRunningError);
    await server.close();
    await expect(ControlClient.connect(controlSocketPath(stateDir), token)).rejects.toBeInstanceOf(
      DaemonNotRunningError,
    );
    await again.listen();
    server = again;
  });
});
