import {
  CloseCode,
  ErrorCode,
  encodeClientMessage,
  INPUT_CHUNK_BYTES,
  INPUT_WINDOW_BYTES,
} from '@burrow/protocol';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { apiConnectionRig, disposeRigs, RIG_DELIVERY_ID } from '../../test/api-connection-rig.js';
import { QUIET_PUBLIC_STATE } from '../attention-host/public-state.js';
import { MAX_VIEWERS_PER_SESSION } from '../viewer/viewer.js';
import { INPUT_ACK_EVERY_BYTES, PHONE_SILENCE_CLOSE_MS } from './api-connection.js';
import type { AttentionPort } from './attention-port.js';
import type { RemoteSettingsPort } from './remote-settings-port.js';

const calls: string[] = [];
const attention: AttentionPort = {
  publicState: () => QUIET_PUBLIC_STATE,
  acknowledge: (s, _v, w) => calls.push(`ack ${s} ${w}`),
  todo: (s, a) => calls.push(`todo ${s} ${a}`),
  dismiss: (s) => calls.push(`dismiss ${s}`),
  presence: (_v, r) => calls.push(`presence ${r.state}`),
  focus: (_v, s) => calls.push(`focus ${s}`),
  viewerGone: () => calls.push('gone'),
  activity: () => calls.push('activity'),
  onChange: () => () => {},
};

afterEach(async () => {
  await disposeRigs();
  calls.length = 0;
});

let alarm = {
  inactivityTimeoutMs: 60_000,
  deferAlertsUntilQuiet: true,
  pushEnabled: true,
  pushDelayMs: 10_000,
};
let rules: readonly string[] = ['claude'];
const settingsPort: RemoteSettingsPort = {
  pushStatus: async (id) => ({ pushEnabled: alarm.pushEnabled, subscribed: id === RIG_DELIVERY_ID }),
  pushTest: async () => ({ outcome: 'partial', targets: 2, delivered: 1 }),
  settings: () => alarm,
  updateSettings: (patch) => {
    alarm = { ...alarm, ...patch, pushDelayMs: Math.min(3_600_000, patch.pushDelayMs ?? alarm.pushDelayMs) };
    return alarm;
  },
  watchRules: () => rules,
  setWatchRules: (next) => {
    if (next.some((r) => r !== r.toLowerCase())) throw new RangeError('not a watch key');
    rules = next;
    return rules;
  },
};

function connection(withSettings = false, silenceCloseMs?: number) {
  return apiConnectionRig({
    attention,
    forgetMe: async () => {
      calls.push('forget-me');
    },
    ...(withSettings ? { settings: settingsPort } : {}),
    ...(silenceCloseMs !== undefined ? { silenceCloseMs } : {}),
  });
}

const frame = (m: Parameters<typeof encodeClientMessage>[0]) => encodeClientMessage(m);
const hello = frame({ type: 'hello', appVersion: 't', viewer: 'test', cols: 80, rows: 24 });

describe('ApiConnection settings screen (R-B-PUSH, R-SET)', () => {
  it('answers push-status, push-test, settings and watch rules through the port', async () => {
    const c = connection(true);
    c.api.receive(hello);
    c.api.receive(frame({ type: 'push-status', rid: 1 }));
    c.api.receive(frame({ type: 'push-test', rid: 2 }));
    await new Promise((r) => setTimeout(r, 0));
    expect(c.sent).toContainEqual({ type: 'push-status', rid: 1, pushEnabled: true, subscribed: true });
    expect(c.sent).toContainEqual({
      type: 'push-test-result',
      rid: 2,
      outcome: 'partial',
      targets: 2,
      delivered: 1,
    });
    c.api.receive(frame({ type: 'settings-set', rid: 3, patch: { pushDelayMs: 9_000_000 } }));
    expect(c.sent.at(-1)).toMatchObject({ type: 'settings', rid: 3, settings: { pushDelayMs: 3_600_000 } });
    c.api.receive(frame({ type: 'settings-get', rid: 4 }));
    expect(c.sent.at(-1)).toMatchObject({ type: 'settings', rid: 4, settings: { pushDelayMs: 3_600_000 } });
    c.api.receive(frame({ type: 'watch-rules-set', rid: 5, rules: ['codex', 'aider'] }));
    expect(c.sent.at(-1)).toEqual({ type: 'watch-rules', rid: 5, rules: ['codex', 'aider'] });
    c.api.receive(frame({ type: 'watch-rules-set', rid: 6, rules: ['Bad'] }));
    expect(c.sent.at(-1)).toMatchObject({ type: 'error', rid: 6, code: ErrorCode.BAD_REQUEST });
    c.api.receive(frame({ type: 'watch-rules-get', rid: 7 }));
    expect(c.sent.at(-1)).toEqual({ type: 'watch-rules', rid: 7, rules: ['codex', 'aider'] });
    c.api.dispose();
  });

  it('without a settings port answers unknown_message', () => {
    const c = connection();
    c.api.receive(hello);
    c.api.receive(frame({ type: 'settings-get', rid: 9 }));
    expect(c.sent.at(-1)).toMatchObject({ type: 'error', rid: 9, code: ErrorCode.UNKNOWN_MESSAGE });
    c.api.dispose();
  });
});

describe('ApiConnection liveness (issue 8: a phone cut off without a close)', () => {
  it('closes a phone that sent nothing for silenceCloseMs; every frame restarts the count', () => {
    vi.useFakeTimers();
    try {
      const c = connection(false, 1_000);
      c.api.receive(hello);
      vi.advanceTimersByTime(900);
      c.api.receive(frame({ type: 'ping', rid: 1 }));
      expect(c.sent.at(-1)).toEqual({ type: 'pong', rid: 1 });
      vi.advanceTimersByTime(900);
      expect(c.closes).toEqual([]);
      vi.advanceTimersByTime(100);
      expect(c.closes).toEqual([CloseCode.PHONE_SILENT]);
      expect(calls).toContain('gone');
      // Disposed: nothing later is answered, and the timer does not fire twice.
      c.api.receive(frame({ type: 'ping', rid: 2 }));
      vi.advanceTimersByTime(5_000);
      expect(c.sent.at(-1)).toEqual({ type: 'pong', rid: 1 });
      expect(c.closes).toEqual([CloseCode.PHONE_SILENT]);
    } finally {
      vi.useRealTimers();
    }
  });

  it('does not fire after dispose, refuses a bad bound, and defaults to four missed 5 s pings', () => {
    vi.useFakeTimers();
    try {
      const c = connection(false, 1_000);
      c.api.dispose();
      vi.advanceTimersByTime(2_000);
      expect(c.closes).toEqual([]);
    } finally {
      vi.useRealTimers();
    }
    expect(() => connection(false, 0)).toThrow(RangeError);
    expect(() => connection(false, 1.5)).toThrow(RangeError);
    expect(PHONE_SILENCE_CLOSE_MS).toBe(20_000);
  });
});

describe('ApiConnection directory on list changes (issue 17 item 7)', () => {
  it('a session that prints nothing reaches the phone when the list changes, not at the next refresh', () => {
    vi.useFakeTimers();
    try {
      const c = connection();
      // What RemoteService wires for every live phone (RemoteEndpoint.listChanged).
      const off = c.registry.onListChange(() => c.api.listChanged());
      c.api.receive(hello);
      const s = c.registry.create({ cwd: '/', command: ['/bin/sh', '-c', 'sleep 5'], name: 'quiet' });
      // No timer has run: the upsert came from the list change itself.
      expect(c.sent.filter((m) => m.type === 'directory-upsert').map((m) => m.entry.id)).toEqual([s.id]);
      c.registry.rename(s.id, 'still-quiet');
      expect(c.sent.at(-1)).toMatchObject({ type: 'directory-upsert', entry: { name: 'still-quiet' } });
      off();
      c.api.dispose();
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('ApiConnection input-ack (R-FLOW-2, issue 24.8)', () => {
  const chunk = (n: number) => new Uint8Array(INPUT_CHUNK_BYTES).fill(0x61 + (n % 26));
  const acks = (c: ReturnType<typeof connection>) =>
    c.sent.filter((m) => m.type === 'input-ack').map((m) => (m as { received: number }).received);

  it('acknowledges input every INPUT_ACK_EVERY_BYTES while the program keeps up', async () => {
    const c = connection();
    c.api.receive(hello);
    const s = c.registry.create({ cwd: '/', command: ['/bin/sh', '-c', 'stty raw -echo; cat > /dev/null'] });
    c.api.receive(frame({ type: 'attach', rid: 5, session: s.id, cols: 80, rows: 24 }));
    await new Promise((r) => setTimeout(r, 300));
    for (let i = 0; i < 4; i++)
      c.api.receive(frame({ type: 'input', session: s.id, kind: 'user', data: chunk(i) }));
    expect(acks(c)).toEqual([INPUT_ACK_EVERY_BYTES, 2 * INPUT_ACK_EVERY_BYTES]);
    c.api.dispose();
  });

  it('holds the acknowledgement while the program leaves INPUT_WINDOW_BYTES unread, and gives it when the input is gone', async () => {
    const c = connection();
    c.api.receive(hello);
    const s = c.registry.create({ cwd: '/', command: ['/bin/sh', '-c', 'stty raw -echo; sleep 30'] });
    c.api.receive(frame({ type: 'attach', rid: 6, session: s.id, cols: 80, rows: 24 }));
    await new Promise((r) => setTimeout(r, 300));
    const total = 2 * INPUT_WINDOW_BYTES;
    for (let i = 0; i < total / INPUT_CHUNK_BYTES; i++)
      c.api.receive(frame({ type: 'input', session: s.id, kind: 'user', data: chunk(i) }));
    await new Promise((r) => setTimeout(r, 200));
    // Acknowledged up to about the window (the terminal itself holds a few KiB), then nothing more.
    const held = acks(c).at(-1) ?? 0;
    expect(held).toBeLessThanOrEqual(INPUT_WINDOW_BYTES + INPUT_ACK_EVERY_BYTES);
    expect(held).toBeLessThan(total);
    // The program ends: nothing waits any more, so everything is acknowledged (the phone is never stuck).
    await c.registry.kill(s.id);
    await vi.waitFor(() => expect(acks(c).at(-1)).toBe(total), { timeout: 5_000 });
    c.api.dispose();
  });
});

describe('ApiConnection refusals name what refused them (issue 24.8)', () => {
  it('a name taken is a conflict and a limit reached is limit_exceeded, in the session layer’s words', () => {
    const c = connection();
    c.api.receive(hello);
    const a = c.registry.create({ cwd: '/', command: ['/bin/sh', '-c', 'sleep 5'], name: 'first' });
    c.registry.create({ cwd: '/', command: ['/bin/sh', '-c', 'sleep 5'], name: 'second' });
    c.api.receive(frame({ type: 'rename', rid: 41, session: a.id, name: 'second' }));
    expect(c.sent.at(-1)).toEqual({
      type: 'error',
      rid: 41,
      code: ErrorCode.CONFLICT,
      message: 'a session is already called "second"; pick another name',
    });
    // Every viewer slot of a session taken: the phone's attach names the limit.
    for (let i = 0; c.registry.get(a.id).info().viewers < MAX_VIEWERS_PER_SESSION; i++)
      c.registry
        .get(a.id)
        .attach({ id: `v${i}`, kind: 'local', backlog: () => 0, deliver: () => {}, close: () => {} });
    c.api.receive(frame({ type: 'attach', rid: 42, session: a.id, cols: 80, rows: 24 }));
    const refused = c.sent.find((m) => m.type === 'error' && m.rid === 42);
    expect(refused).toMatchObject({ code: ErrorCode.LIMIT_EXCEEDED });
    expect((refused as { message: string }).message).toContain(
      `${MAX_VIEWERS_PER_SESSION} viewers, Burrow's limit`,
    );
    c.api.dispose();
  });
});

describe('ApiConnection', () => {
  it('requires hello first, then answers with hello and the directory', () => {
    const a = connection();
    a.api.receive(frame({ type: 'ping', rid: 1 }));
    expect(a.closes).toEqual([CloseCode.PROTOCOL_VIOLATION]);
    const b = connection();
    b.api.receive(hello);
    expect(b.sent.map((m) => m.type)).toEqual(['hello', 'directory']);
    b.api.receive(frame({ type: 'ping', rid: 7 }));
    expect(b.sent.at(-1)).toEqual({ type: 'pong', rid: 7 });
    b.api.dispose();
  });

  it('answers unknown sessions and unattached input with errors, and routes verbs to the engine', () => {
    const c = connection();
    c.api.receive(hello);
    c.api.receive(frame({ type: 'attach', rid: 3, session: 'nosuch', cols: 80, rows: 24 }));
    expect(c.sent.at(-1)).toMatchObject({ type: 'error', rid: 3, code: ErrorCode.UNKNOWN_SESSION });
    const s = c.registry.create({ cwd: '/', command: ['/bin/sh', '-c', 'sleep 5'] });
    c.api.receive(frame({ type: 'input', session: s.id, kind: 'user', data: new Uint8Array([0x61]) }));
    expect(c.sent.at(-1)).toMatchObject({ type: 'error', rid: null, code: ErrorCode.NOT_ATTACHED });
    c.api.receive(frame({ type: 'acknowledge', session: s.id, withInput: false }));
    c.api.receive(frame({ type: 'todo', session: s.id, action: 'toggle' }));
    c.api.receive(frame({ type: 'dismiss', session: s.id }));
    c.api.receive(frame({ type: 'presence', state: 'away', focused: false, visible: false }));
    c.api.receive(frame({ type: 'focus', session: s.id }));
    expect(calls).toEqual([
      `ack ${s.id} false`,
      `todo ${s.id} toggle`,
      `dismiss ${s.id}`,
      'presence away',
      `focus ${s.id}`,
    ]);
    c.api.dispose();
    expect(calls.at(-1)).toBe('gone');
  });

  it('sends no directory upsert for keystrokes alone (the echo stays one message), but does for a rename', async () => {
    const c = connection();
    c.api.receive(hello);
    const s = c.registry.create({ cwd: '/', command: ['/bin/cat'] });
    c.api.receive(frame({ type: 'attach', rid: 4, session: s.id, cols: 80, rows: 24 }));
    const upserts = () => c.sent.filter((m) => m.type === 'directory-upsert').length;
    await new Promise((r) => setTimeout(r, 200));
    const before = upserts();
    // Each keystroke is an input activity and its echo moves lastActivityAt / outputOffset; neither alone
    // may put a directory message in front of the echo.
    for (const ch of 'abc') {
      c.api.receive(
        frame({ type: 'input', session: s.id, kind: 'user', data: new TextEncoder().encode(ch) }),
      );
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(s.info().offset).toBeGreaterThan(0);
    expect(upserts()).toBe(before);
    c.api.receive(frame({ type: 'rename', rid: 9, session: s.id, name: 'renamed' }));
    expect(c.sent.find((m) => m.type === 'directory-upsert' && m.entry.name === 'renamed')).toBeDefined();
    c.api.dispose();
  });

  it("a phone's keystrokes keep its presence alive, before they acknowledge; its terminal's replies do not (issue 23)", async () => {
    const c = connection();
    c.api.receive(hello);
    const s = c.registry.create({ cwd: '/', command: ['/bin/cat'] });
    c.api.receive(frame({ type: 'attach', rid: 4, session: s.id, cols: 80, rows: 24 }));
    await new Promise((r) => setTimeout(r, 100));
    calls.length = 0;
    c.api.receive(frame({ type: 'input', session: s.id, kind: 'user', data: new TextEncoder().encode('y') }));
    c.api.receive(
      frame({ type: 'input', session: s.id, kind: 'reply', data: new TextEncoder().encode('\x1b[I') }),
    );
    expect(calls).toEqual(['activity', `ack ${s.id} true`]);
    c.api.dispose();
  });

  it('clears only exited sessions and forgets this phone on request', async () => {
    const c = connection();
    c.api.receive(hello);
    const s = c.registry.create({ cwd: '/', command: ['/bin/sh', '-c', 'exit 3'] });
    const live = c.registry.create({ cwd: '/', command: ['/bin/sh', '-c', 'sleep 5'] });
    c.api.receive(frame({ type: 'clear', rid: 4, session: live.id }));
    expect(c.sent.at(-1)).toMatchObject({ type: 'error', rid: 4, code: ErrorCode.CONFLICT });
    for (let i = 0; i < 100 && s.running; i++) await new Promise((r) => setTimeout(r, 20));
    c.api.receive(frame({ type: 'clear', rid: 5, session: s.id }));
    for (let i = 0; i < 100 && !c.sent.some((m) => m.type === 'ok'); i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(c.sent.find((m) => m.type === 'ok')).toEqual({ type: 'ok', rid: 5 });
    expect(c.registry.list().map((x) => x.id)).toEqual([live.id]);
    c.api.receive(frame({ type: 'forget-me', rid: 6 }));
    expect(c.sent.at(-1)).toEqual({ type: 'ok', rid: 6 });
    expect(calls).toContain('forget-me');
    c.api.dispose();
  });

  it('never throws and never sends an invalid message, whatever arrives', () => {
    const valid = frame({ type: 'rename', rid: 9, session: 'abcdefgh', name: 'x' });
    fc.assert(
      fc.property(
        fc.oneof(
          fc.uint8Array({ minLength: 1, maxLength: 300 }),
          fc.tuple(fc.nat(valid.length - 1), fc.integer({ min: 1, max: 255 })).map(([i, x]) => {
            const m = Uint8Array.from(valid);
            m[i] = m[i]! ^ x;
            return m;
          }),
          fc.json().map((j) => new Uint8Array([...new TextEncoder().encode(j)])),
        ),
        (bytes) => {
          // A fresh connection per input: a fatal frame closes one, and later inputs must reach the handler.
          const c = connection();
          c.api.receive(hello);
          c.api.receive(bytes);
          c.api.dispose();
        },
      ),
      { seed: 99, numRuns: 400 },
    );
  });
});
