/**
 * The control server's delegated verbs over a real socket: the pairing conversation (link → pair-request →
 * pair-answer → pair-done), cancel on CLI disconnect, and the per-connection realm and abort signal an
 * `await` relies on.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PairingResult, PairRequest } from '../remote/remote-endpoint.js';
import { SessionRegistry } from '../session/session-registry.js';
import { ensureOwnerOnlyDir } from '../state/state-dir.js';
import { ControlClient, ControlRequestError } from './control-client.js';
import type { StatusResult, StreamEvent } from './control-messages.js';
import { controlSocketPath } from './control-paths.js';
import { ControlServer } from './control-server.js';
import type { DaemonVerbs, VerbContext } from './daemon-verbs.js';

const until = async (what: string, cond: () => boolean, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
};

class FakeVerbs implements DaemonVerbs {
  approve: ((r: PairRequest) => Promise<boolean>) | null = null;
  done: ((r: PairingResult) => void) | null = null;
  cancelled = 0;
  gone: string[] = [];
  contexts: VerbContext[] = [];
  async handle(method: string, _params: unknown, ctx: VerbContext): Promise<unknown> {
    this.contexts.push(ctx);
    if (method === 'await')
      return new Promise((resolve) =>
        ctx.signal.addEventListener('abort', () => resolve({ cause: 'cancelled' })),
      );
    if (method === 'devices') return { devices: [], relayError: null };
    throw new RangeError('not here');
  }
  describe() {
    return { ringing: false };
  }
  realmGone(realmId: string) {
    this.gone.push(realmId);
  }
  async startPairing(o: {
    label: string | null;
    approve: (r: PairRequest) => Promise<boolean>;
    done: (r: PairingResult) => void;
  }) {
    this.approve = o.approve;
    this.done = o.done;
    return {
      started: { link: `https://relay.example/#pair=${o.label}`, qr: '[qr]', expiresAt: 123 },
      cancel: () => this.cancelled++,
    };
  }
}

const status = (): StatusResult => {
  throw new Error('unused');
};

let verbs: FakeVerbs;
let server: ControlServer;
let registry: SessionRegistry;
let socketPath: string;
const token = randomBytes(32);

beforeEach(async () => {
  const stateDir = join(mkdtempSync(join(tmpdir(), 'cv-')), 's');
  ensureOwnerOnlyDir(stateDir);
  socketPath = controlSocketPath(stateDir);
  registry = new SessionRegistry({ now: Date.now, env: {}, defaultShell: '/bin/sh', log: () => {} });
  verbs = new FakeVerbs();
  server = new ControlServer({ socketPath, token, registry, status, verbs, log: () => {} });
  await server.listen();
});

afterEach(async () => {
  await server.close();
  await registry.killAll();
});

describe('pairing over the control socket', () => {
  it('link first, then the code and label, the answer, and how it ended', async () => {
    const c = await ControlClient.connect(socketPath, token);
    const events: StreamEvent[] = [];
    let ended = false;
    const started = await c.pair(
      { label: 'desk' },
      { event: (e) => events.push(e), end: () => (ended = true) },
    );
    expect(started).toEqual({ link: 'https://relay.example/#pair=desk', qr: '[qr]', expiresAt: 123 });
    const answer = verbs.approve!({ code: '123456', label: 'phone', platform: 'iOS' });
    await until('the pair-request', () => events.length === 1);
    expect(events[0]).toEqual({ event: 'pair-request', code: '123456', label: 'phone', platform: 'iOS' });
    c.send({ type: 'pair-answer', accept: true });
    expect(await answer).toBe(true);
    verbs.done!({ outcome: 'paired', deviceId: 'dev0000000000001', label: 'phone' });
    await until('pair-done and the close', () => events.length === 2 && ended);
    expect(events[1]).toEqual({
      event: 'pair-done',
      outcome: 'paired',
      message: 'paired',
      deviceId: 'dev0000000000001',
      label: 'phone',
    });
    expect(verbs.cancelled).toBe(0);
  });

  it('the CLI going away withdraws the offer and declines a waiting request', async () => {
    const c = await ControlClient.connect(socketPath, token);
    await c.pair({ label: null }, { event: () => {}, end: () => {} });
    const answer = verbs.approve!({ code: '654321', label: 'phone', platform: '' });
    c.close();
    expect(await answer).toBe(false);
    await until('the cancel', () => verbs.cancelled === 1);
  });

  it('refuses a malformed pair-answer by dropping the connection', async () => {
    const c = await ControlClient.connect(socketPath, token);
    let ended = false;
    await c.pair({ label: null }, { event: () => {}, end: () => (ended = true) });
    c.send({ type: 'pair-answer', accept: 'yes' as unknown as boolean });
    await until('the drop', () => ended);
    await until('the cancel', () => verbs.cancelled === 1);
  });
});

describe('delegated verbs', () => {
  it('get the connection realm and an abort signal that fires when the CLI disconnects', async () => {
    const c = await ControlClient.connect(socketPath, token);
    const pending = c.request('await', { session: 'x', until: 'quiet', timeoutMs: 1000 }).catch(() => null);
    await until('the await to reach the verbs', () => verbs.contexts.length === 1);
    const ctx = verbs.contexts[0]!;
    expect(ctx.signal.aborted).toBe(false);
    c.close();
    await pending;
    await until('the abort', () => ctx.signal.aborted);
    await until('realmGone', () => verbs.gone.includes(ctx.realmId));
  });

  it('answer errors with their codes and add describe() fields to list rows', async () => {
    const c = await ControlClient.connect(socketPath, token);
    await expect(c.request('push-test', {})).rejects.toEqual(
      new ControlRequestError('bad-request', 'not here'),
    );
    registry.create({ cwd: '/', command: ['/bin/sh', '-c', 'sleep 5'] });
    const list = (await c.request('list', {})) as { sessions: Record<string, unknown>[] };
    expect(list.sessions[0]).toMatchObject({ status: 'running', ringing: false });
    c.close();
  });
});
