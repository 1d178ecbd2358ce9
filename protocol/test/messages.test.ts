// Rejection of malformed control messages, one rule at a time. [SPEC: R-MSG-*, R-FIELD-*, R-DIR-*, R-SET-*,
// R-C-*, R-B-*, R-PAIR-*]
import { describe, expect, test } from 'vitest';
import {
  decodeBurrowMessage,
  decodeClientMessage,
  decodePairBurrowMessage,
  decodePairClientMessage,
  encodeBurrowMessage,
  encodeClientMessage,
  MAX_AGENT_NAME_CHARS,
  MAX_ARGV_ENTRIES,
  MAX_COMMAND_CHARS,
  MAX_CONTROL_JSON_BYTES,
  MAX_CONVERSATION_ID_CHARS,
  MAX_CWD_CHARS,
  MAX_LABEL_CHARS,
  MAX_NOTIFICATION_BODY_CHARS,
  MAX_NOTIFICATION_TITLE_CHARS,
  MAX_SESSIONS,
  MAX_TITLE_CHARS,
  MAX_WATCH_KEY_CHARS,
  MAX_WATCH_RULES,
  ProtocolError,
  type SessionEntry,
} from '../src/remote/index.js';
import { controlFrame, controlOf, expectRule } from './helpers.js';

const client = (value: unknown) => decodeClientMessage(controlOf(value));
const burrow = (value: unknown) => decodeBurrowMessage(controlOf(value));

const entry: SessionEntry = {
  id: 's1',
  name: 'build',
  title: 'make',
  cwd: '/home/ana/src',
  command: 'make -j8',
  watchKey: 'make',
  cols: 120,
  rows: 40,
  exited: false,
  exitCode: null,
  createdAt: 1_700_000_000_000,
  lastActivityAt: 1_700_000_100_000,
  outputOffset: 4096,
  status: 'ALERT_RINGING',
  ringing: true,
  ringingSince: 1_700_000_100_000,
  episodeId: 'e7',
  todo: false,
  notification: { source: 'command-exit', title: 'make', body: 'exited with 0' },
  awaited: false,
};

describe('R-MSG-1: a control message is a JSON object with a string type', () => {
  test.each(['[]', '"hello"', '1', 'null', '{}', '{"type":3}'])('%s is refused', (json) => {
    expectRule(() => decodeClientMessage(controlFrame(json)), 'R-MSG-1', { fatal: false });
  });
});

describe('R-MSG-2: exactly the fields of its type, each of its type', () => {
  test('an unknown field is refused, and the error names neither it nor its value', () => {
    const error = expectRule(() => client({ type: 'ping', rid: 1, SECRET_KEY: 'SECRET-MARKER' }), 'R-MSG-2', {
      rid: 1,
    });
    expect(error.message).toBe('R-MSG-2: ping: unknown field');
    const nested = expectRule(
      () => client({ type: 'settings-set', rid: 1, patch: { SECRET_KEY: 1 } }),
      'R-MSG-2',
    );
    expect(nested.message).toBe('R-MSG-2: settings-set.patch: unknown field');
  });
  test('a wrong type is refused without echoing the value', () => {
    const error = expectRule(
      () => client({ type: 'attach', rid: 2, session: 'a', cols: 'SECRET-MARKER', rows: 1 }),
      'R-MSG-2',
    );
    expect(error.message).not.toContain('SECRET-MARKER');
    expect(error.code).toBe('malformed_message');
  });
  test('a missing field is refused', () => {
    expectRule(() => client({ type: 'attach', rid: 2, session: 'a', cols: 80 }), 'R-MSG-2');
  });
  test('a __proto__ key is an unknown field, not a prototype', () => {
    expectRule(
      () => decodeClientMessage(controlFrame('{"type":"ping","rid":1,"__proto__":{"x":1}}')),
      'R-MSG-2',
    );
  });
  test('no check message ever carries a peer value (psk in a bad pairing reply)', () => {
    const psk = `${'A'.repeat(42)}!`;
    const error = expectRule(
      () =>
        decodePairBurrowMessage(
          controlOf({
            type: 'pair-accepted',
            deviceId: 'd1',
            psk,
            deliveryId: 'A'.repeat(22),
            deliveryToken: 'A'.repeat(43),
            burrowId: 'A'.repeat(22),
            burrowName: 'home',
            relayUrl: 'https://r.example',
          }),
        ),
      'R-FIELD-10',
    );
    expect(error.message).not.toContain(psk);
  });
});

describe('R-MSG-3: unknown types get unknown_message, echoing a valid rid', () => {
  test('with a rid', () => {
    expectRule(() => client({ type: 'teleport', rid: 9 }), 'R-MSG-3', { code: 'unknown_message', rid: 9 });
  });
  test('with an invalid rid, none is echoed', () => {
    const error = expectRule(() => client({ type: 'teleport', rid: 0 }), 'R-MSG-3');
    expect(error.rid).toBeUndefined();
  });
});

describe('R-MSG-4: attached / resync / history-page travel only as TEXT_BODY', () => {
  const head = { type: 'resync', session: 's', offset: 0, cols: 1, rows: 1, firstLine: 0, hasOlder: false };
  test('in a CONTROL frame it is refused', () => {
    expectRule(() => burrow({ ...head, data: '' }), 'R-MSG-4');
  });
  test('a TEXT_BODY whose JSON already has data is refused', () => {
    const json = new TextEncoder().encode(JSON.stringify({ ...head, data: 'x' }));
    const frame = new Uint8Array([0x02, 0, 0, 0, json.length, ...json]);
    expectRule(() => decodeBurrowMessage(frame), 'R-MSG-4');
  });
  test('a TEXT_BODY of another type is refused', () => {
    const json = new TextEncoder().encode(JSON.stringify({ type: 'pong', rid: 1 }));
    expectRule(() => decodeBurrowMessage(new Uint8Array([0x02, 0, 0, 0, json.length, ...json])), 'R-MSG-4');
  });
});

describe('R-FIELD-*: shared field rules', () => {
  test.each(['', 'a'.repeat(33), 'a b', 'é', 'a/b'])('R-FIELD-1: session id %j is refused', (session) => {
    expectRule(() => client({ type: 'detach', session }), 'R-FIELD-1');
  });
  test('R-FIELD-1: 32 characters of the alphabet are accepted', () => {
    expect(client({ type: 'detach', session: 'aZ09_-'.padEnd(32, 'x') })).toMatchObject({ type: 'detach' });
  });
  test.each([0, -1, 1.5, 2 ** 32])('R-FIELD-2: rid %d is refused', (rid) => {
    expectRule(() => client({ type: 'ping', rid }), 'R-FIELD-2');
  });
  test.each([-1, 0.5, 2 ** 53])('R-FIELD-3: offset %d is refused', (resumeFrom) => {
    expectRule(
      () => client({ type: 'attach', rid: 1, session: 'a', cols: 1, rows: 1, resumeFrom }),
      'R-FIELD-3',
    );
  });
  test('R-FIELD-4: timestamps are integer epoch milliseconds', () => {
    expectRule(() => burrow({ type: 'directory-upsert', entry: { ...entry, createdAt: -5 } }), 'R-FIELD-4');
  });
  test.each([0, 1001, 80.5])('R-FIELD-5: size %d is refused', (cols) => {
    expectRule(() => client({ type: 'resize', session: 'a', cols, rows: 24 }), 'R-FIELD-5');
  });
  test.each(['a\x1b[31m', 'a\u0085', 'a\u202e', 'a\u200b', '\ud800', 'x'.repeat(MAX_LABEL_CHARS + 1), ''])(
    'R-FIELD-6: display text %j is refused',
    (name) => {
      expectRule(() => client({ type: 'rename', rid: 1, session: 'a', name }), 'R-FIELD-6');
    },
  );
  test('R-FIELD-6: bounds count code points, not UTF-16 units', () => {
    expect(client({ type: 'rename', rid: 1, session: 'a', name: '😀'.repeat(MAX_LABEL_CHARS) })).toBeTruthy();
    expectRule(
      () => client({ type: 'rename', rid: 1, session: 'a', name: '😀'.repeat(MAX_LABEL_CHARS + 1) }),
      'R-FIELD-6',
    );
  });
  test('R-FIELD-7: argv entries may hold any text but NUL or lone surrogates', () => {
    const ok = client({
      type: 'create',
      rid: 1,
      argv: ['sh', '-c', 'echo "a\tb"\n'],
      cwd: null,
      name: null,
      cols: 1,
      rows: 1,
    });
    expect(ok).toMatchObject({ argv: ['sh', '-c', 'echo "a\tb"\n'] });
    for (const bad of ['a\0b', 'a\udc00']) {
      expectRule(
        () => client({ type: 'create', rid: 1, argv: [bad], cwd: null, name: null, cols: 1, rows: 1 }),
        'R-FIELD-7',
      );
    }
  });
  test.each(['', 'UPPER', '-x', 'a'.repeat(33)])('R-FIELD-8: capability %j is refused', (capability) => {
    expectRule(
      () =>
        burrow({
          type: 'hello',
          burrowName: 'h',
          protocolVersion: 1,
          agentVersion: '1',
          capabilities: [capability],
        }),
      'R-FIELD-8',
    );
  });
  test.each(['', '1 0', 'x'.repeat(33), 'é'])('R-FIELD-9: version %j is refused', (appVersion) => {
    expectRule(() => client({ type: 'hello', appVersion, viewer: 'pocket', cols: 1, rows: 1 }), 'R-FIELD-9');
  });
});

describe('R-C-*: client messages', () => {
  test('R-C-CREATE-1: argv has 1 … MAX_ARGV_ENTRIES entries and a program', () => {
    const create = (argv: unknown) =>
      client({ type: 'create', rid: 1, argv, cwd: null, name: null, cols: 1, rows: 1 });
    expectRule(() => create([]), 'R-C-CREATE-1');
    expectRule(() => create(['']), 'R-C-CREATE-1');
    expectRule(() => create(Array(MAX_ARGV_ENTRIES + 1).fill('x')), 'R-C-CREATE-1');
    expect(create(Array(MAX_ARGV_ENTRIES).fill('x'))).toBeTruthy();
    expectRule(() => create(Array(9).fill('x'.repeat(4096))), 'R-C-CREATE-1');
    expect(create(Array(8).fill('x'.repeat(4096)))).toBeTruthy();
    expect(create(null)).toMatchObject({ argv: null });
  });
  test('R-C-RESUME-1: resume names one session', () => {
    expect(client({ type: 'resume', rid: 3, session: 'abcdefgh' })).toEqual({
      type: 'resume',
      rid: 3,
      session: 'abcdefgh',
    });
    expect(() => client({ type: 'resume', rid: 3 })).toThrow();
    expect(() => client({ type: 'resume', rid: 3, session: 'abcdefgh', argv: ['sh'] })).toThrow();
  });
  test('R-C-HIST-1: a history page asks for 1 … MAX_HISTORY_LINES lines', () => {
    expectRule(
      () => client({ type: 'history', rid: 1, session: 'a', beforeLine: 10, maxLines: 0 }),
      'R-C-HIST-1',
    );
    expectRule(
      () => client({ type: 'history', rid: 1, session: 'a', beforeLine: 10, maxLines: 10_001 }),
      'R-C-HIST-1',
    );
  });
  test('enums are closed', () => {
    expectRule(() => client({ type: 'presence', state: 'asleep', focused: true, visible: true }), 'R-MSG-2');
    expectRule(() => client({ type: 'todo', session: 'a', action: 'flip' }), 'R-MSG-2');
    expectRule(() => client({ type: 'hello', appVersion: '1', viewer: 'tv', cols: 1, rows: 1 }), 'R-MSG-2');
  });
});

describe('R-SET-*: settings and watch rules', () => {
  test('R-SET-1: durations are integers 0 … MAX_SETTING_MS', () => {
    for (const pushDelayMs of [-1, 1.5, 86_400_001]) {
      expectRule(() => client({ type: 'settings-set', rid: 1, patch: { pushDelayMs } }), 'R-SET-1');
    }
  });
  test('R-SET-2: a patch names at least one field, and only known ones', () => {
    expectRule(() => client({ type: 'settings-set', rid: 1, patch: {} }), 'R-SET-2');
    expectRule(() => client({ type: 'settings-set', rid: 1, patch: { speakEnabled: true } }), 'R-MSG-2');
  });
  test('R-SET-3: watch rules are distinct, bounded, non-empty keys', () => {
    const set = (rules: unknown) => client({ type: 'watch-rules-set', rid: 1, rules });
    expectRule(() => set(['claude', 'claude']), 'R-SET-3');
    expectRule(() => set(Array.from({ length: MAX_WATCH_RULES + 1 }, (_, i) => `k${i}`)), 'R-SET-3');
    expectRule(() => set(['']), 'R-FIELD-6');
    expectRule(() => set(['x'.repeat(MAX_WATCH_KEY_CHARS + 1)]), 'R-FIELD-6');
    expect(set(['claude', 'pnpm dev'])).toMatchObject({ rules: ['claude', 'pnpm dev'] });
  });
});

describe('R-DIR-*: directory entries are consistent', () => {
  const upsert = (patch: Partial<SessionEntry>) =>
    burrow({ type: 'directory-upsert', entry: { ...entry, ...patch } });
  test('the example is valid', () => {
    expect(upsert({})).toEqual({ type: 'directory-upsert', entry });
  });
  test('R-DIR-1: exitCode is an integer', () => {
    expectRule(() => upsert({ exited: true, exitCode: 1.5 }), 'R-DIR-1');
  });
  test('R-DIR-2: a running session has no exitCode', () => {
    expectRule(() => upsert({ exited: false, exitCode: 0 }), 'R-DIR-2');
    expect(upsert({ exited: true, exitCode: null })).toBeTruthy();
  });
  test('R-DIR-3: ringingSince and episodeId are set exactly while ringing', () => {
    expectRule(() => upsert({ ringingSince: null }), 'R-DIR-3');
    expectRule(() => upsert({ episodeId: null }), 'R-DIR-3');
    expectRule(() => upsert({ ringing: false, status: 'BUSY' }), 'R-DIR-3');
  });
  test('R-DIR-4: status is ALERT_RINGING exactly while ringing', () => {
    expectRule(() => upsert({ status: 'BUSY' }), 'R-DIR-4');
    expectRule(() => upsert({ ringing: false, ringingSince: null, episodeId: null }), 'R-DIR-4');
  });
  test('R-DIR-5: lastActivityAt is not before createdAt', () => {
    expectRule(() => upsert({ lastActivityAt: entry.createdAt - 1 }), 'R-DIR-5');
  });
  test('R-DIR-8: only an exited session is resumable; its agent and conversation are bounded text', () => {
    const resumable = { agent: 'claude', conversation: '7729da4a-f847-4916-a62c-20aca223ae86' };
    const ended = {
      exited: true,
      exitCode: null,
      ringing: false,
      ringingSince: null,
      episodeId: null,
      status: 'NOTHING_TO_SHOW' as const,
    };
    expect(upsert({ ...ended, resumable })).toMatchObject({ entry: { resumable } });
    expect(upsert({ ...ended, resumable: null })).toBeTruthy();
    expect(upsert(ended)).toBeTruthy(); // absent: a Burrow that predates it
    expectRule(() => upsert({ ...ended, exited: false, resumable }), 'R-DIR-8');
    expect(() => upsert({ ...ended, resumable: { agent: '', conversation: 'x' } })).toThrow();
    expect(() => upsert({ ...ended, resumable: { ...resumable, conversation: 'x'.repeat(129) } })).toThrow();
    expect(() => upsert({ ...ended, resumable: { ...resumable, env: {} } as never })).toThrow();
  });
  test('R-DIR-9: a resumed session (running or ended) says which conversation; never also resumable', () => {
    const resumed = { agent: 'codex', conversation: '019a7c2e-5b1d-7f30-9e44-2c6a1d0b8f13' };
    expect(upsert({ resumed })).toMatchObject({ entry: { resumed } });
    expect(upsert({ resumed: null })).toBeTruthy();
    const ended = {
      exited: true,
      exitCode: 0,
      ringing: false,
      ringingSince: null,
      episodeId: null,
      status: 'NOTHING_TO_SHOW' as const,
    };
    expect(upsert({ ...ended, resumed })).toMatchObject({ entry: { resumed } });
    expectRule(() => upsert({ ...ended, resumed, resumable: resumed }), 'R-DIR-9');
    expect(() => upsert({ resumed: { ...resumed, conversation: '' } })).toThrow();
    expect(() => upsert({ resumed: { ...resumed, conversation: `a\u001b[2Jb` } })).toThrow();
    expect(() => upsert({ resumed: { ...resumed, agent: 'x'.repeat(33) } })).toThrow();
    expect(() => upsert({ resumed: { ...resumed, cwd: '/' } as never })).toThrow();
  });
  test('R-DIR-6: a snapshot has distinct ids and at most MAX_SESSIONS entries', () => {
    expectRule(() => burrow({ type: 'directory', sessions: [entry, entry] }), 'R-DIR-6');
    const many = Array.from({ length: MAX_SESSIONS + 1 }, (_, i) => ({ ...entry, id: `s${i}` }));
    expectRule(() => burrow({ type: 'directory', sessions: many }), 'R-DIR-6');
  });
  test('notification sources and statuses are the closed spec sets', () => {
    expectRule(
      () => upsert({ notification: { source: 'osc1337' as 'bell', title: '', body: '' } }),
      'R-MSG-2',
    );
    expectRule(() => upsert({ status: 'RINGING' as 'BUSY' }), 'R-MSG-2');
  });
  test('R-LIM-1: the worst-case directory snapshot fits MAX_CONTROL_JSON_BYTES', () => {
    const max = (n: number) => '😀'.repeat(n);
    const worst = Array.from({ length: MAX_SESSIONS }, (_, i) => ({
      ...entry,
      id: `${i}`.padStart(32, 'x'),
      episodeId: 'e'.repeat(32),
      name: max(MAX_LABEL_CHARS),
      title: max(MAX_TITLE_CHARS),
      cwd: max(MAX_CWD_CHARS),
      command: max(MAX_COMMAND_CHARS),
      watchKey: max(MAX_WATCH_KEY_CHARS),
      notification: {
        source: 'osc777' as const,
        title: max(MAX_NOTIFICATION_TITLE_CHARS),
        body: max(MAX_NOTIFICATION_BODY_CHARS),
      },
      resumed: { agent: max(MAX_AGENT_NAME_CHARS), conversation: max(MAX_CONVERSATION_ID_CHARS) },
    }));
    const frame = encodeBurrowMessage({ type: 'directory', sessions: worst });
    expect(frame.length).toBeLessThanOrEqual(MAX_CONTROL_JSON_BYTES + 1);
    expect(decodeBurrowMessage(frame)).toMatchObject({ type: 'directory' });
  });
});

describe('R-B-*: Burrow results', () => {
  test('R-B-HELLO-1: protocol version and capability count are bounded', () => {
    const hello = {
      type: 'hello',
      burrowName: 'h',
      protocolVersion: 1,
      agentVersion: '0.1.0',
      capabilities: [],
    };
    expectRule(() => burrow({ ...hello, protocolVersion: 0 }), 'R-B-HELLO-1');
    expectRule(
      () => burrow({ ...hello, capabilities: Array.from({ length: 33 }, (_, i) => `c${i}`) }),
      'R-B-HELLO-1',
    );
  });
  test('R-B-PUSH-1 / R-B-PUSH-2: push-test-result counts agree with the outcome', () => {
    const result = (outcome: string, targets: number, delivered: number) =>
      burrow({ type: 'push-test-result', rid: 1, outcome, targets, delivered });
    expectRule(() => result('partial', 2, 3), 'R-B-PUSH-1');
    expectRule(() => result('delivered', 3, 2), 'R-B-PUSH-2');
    expectRule(() => result('no_devices', 1, 0), 'R-B-PUSH-2');
    expectRule(() => result('partial', 2, 0), 'R-B-PUSH-2');
    expectRule(() => result('zero_delivered', 0, 0), 'R-B-PUSH-2');
    expect(result('no_subscriptions', 2, 0)).toMatchObject({ outcome: 'no_subscriptions' });
  });
  test('R-ATTACH-5: a history page does not end before it starts', () => {
    const page = { type: 'history-page', rid: 1, session: 's', firstLine: 10, endLine: 9, hasOlder: false };
    const json = new TextEncoder().encode(JSON.stringify(page));
    expectRule(
      () => decodeBurrowMessage(new Uint8Array([0x02, 0, 0, 0, json.length, ...json])),
      'R-ATTACH-5',
    );
  });
  test('error codes come from the shared table', () => {
    expectRule(() => burrow({ type: 'error', rid: null, code: 'oops', message: '' }), 'R-MSG-2');
    expect(
      burrow({ type: 'error', rid: 4, code: 'unknown_session', message: 'no such session' }),
    ).toBeTruthy();
  });
  test('R-ERR-3: an encoder validates: it never sends what the other side would refuse', () => {
    expectRule(
      () => encodeBurrowMessage({ type: 'directory-upsert', entry: { ...entry, status: 'BUSY' } }),
      'R-DIR-4',
    );
    expectRule(() => encodeClientMessage({ type: 'ping', rid: 0 }), 'R-FIELD-2');
  });
});

describe('R-SIZE-8, R-ATTACH-8: who holds the size, and the scrollback a viewer keeps', () => {
  const changed = {
    type: 'size-changed',
    session: 's1',
    cols: 120,
    rows: 40,
    cause: 'handover',
    holder: 'local',
    holderAway: false,
  };
  test('R-SIZE-8: size-changed says who holds the size, from a closed set, and whether it is away', () => {
    expect(burrow(changed)).toEqual(changed);
    expect(burrow({ ...changed, holder: null, cause: 'away', holderAway: true })).toMatchObject({
      holder: null,
    });
    expectRule(() => burrow({ ...changed, holder: 'desk' }), 'R-MSG-2');
    expectRule(() => burrow({ ...changed, cause: 'local' }), 'R-MSG-2'); // gone: a resize no longer takes it
    expectRule(() => burrow({ ...changed, holderAway: 'no' }), 'R-MSG-2');
    const { holder: _, ...withoutHolder } = changed;
    expectRule(() => burrow(withoutHolder), 'R-MSG-2');
    expectRule(() => burrow({ ...changed, cols: 1001 }), 'R-FIELD-5');
  });
  test('R-ATTACH-8: attach may name the oldest line the viewer keeps, an offset like any line number', () => {
    const attach = { type: 'attach', rid: 1, session: 's1', cols: 48, rows: 30 };
    expect(client({ ...attach, resumeFrom: 9, scrollbackFrom: 1234 })).toMatchObject({
      scrollbackFrom: 1234,
    });
    expect(client(attach)).not.toHaveProperty('scrollbackFrom');
    for (const bad of [-1, 0.5, 2 ** 53, '12'])
      expectRule(
        () => client({ ...attach, scrollbackFrom: bad }),
        typeof bad === 'string' ? 'R-MSG-2' : 'R-FIELD-3',
      );
  });
});

describe('R-PAIR-3: pairing messages', () => {
  const accepted = {
    type: 'pair-accepted',
    deviceId: 'd1',
    psk: Buffer.alloc(32, 7).toString('base64url'),
    deliveryId: Buffer.alloc(16, 1).toString('base64url'),
    deliveryToken: Buffer.alloc(32, 2).toString('base64url'),
    burrowId: Buffer.alloc(16, 3).toString('base64url'),
    burrowName: 'home',
    relayUrl: 'https://relay.example.com',
  };
  const pair = (value: unknown) => decodePairBurrowMessage(controlOf(value));
  test('the example is valid', () => {
    expect(pair(accepted)).toEqual(accepted);
  });
  test('R-FIELD-10: keys and tokens are canonical base64url of their exact size', () => {
    expectRule(() => pair({ ...accepted, psk: accepted.psk.slice(1) }), 'R-FIELD-10');
    expectRule(() => pair({ ...accepted, psk: `${accepted.psk}=` }), 'R-FIELD-10');
    // 32 bytes → 43 characters whose last carries 4 bits: a set low bit is a non-canonical encoding.
    expectRule(() => pair({ ...accepted, psk: `${accepted.psk.slice(0, 42)}B` }), 'R-FIELD-10');
    expectRule(() => pair({ ...accepted, burrowId: `${accepted.burrowId.slice(0, 21)}B` }), 'R-FIELD-10');
  });
  test.each([
    'http://relay.example.com',
    'https://',
    'https://a b',
    'https://u@relay.example',
    'ftp://x',
    'https://r.example/#x',
  ])('R-FIELD-11: relay url %j is refused', (relayUrl) => {
    expectRule(() => pair({ ...accepted, relayUrl }), 'R-FIELD-11');
  });
  test('R-FIELD-11: loopback http is accepted for development', () => {
    expect(pair({ ...accepted, relayUrl: 'http://localhost:8787' })).toBeTruthy();
    expect(pair({ ...accepted, relayUrl: 'http://[::1]:8787/' })).toBeTruthy();
  });
  test('pair mode knows only pairing messages', () => {
    expectRule(
      () =>
        decodePairClientMessage(
          controlOf({ type: 'hello', appVersion: '1', viewer: 'pocket', cols: 1, rows: 1 }),
        ),
      'R-MSG-3',
    );
    expectRule(() => pair({ type: 'pong', rid: 1 }), 'R-MSG-3');
    expectRule(() => pair({ type: 'pair-rejected', reason: 'because' }), 'R-MSG-2');
    expectRule(() => pair({ type: 'error', rid: 3, code: 'internal', message: '' }), 'R-MSG-2');
  });
  test('pair-request carries a label', () => {
    expectRule(
      () =>
        decodePairClientMessage(controlOf({ type: 'pair-request', label: '', platform: '', userAgent: '' })),
      'R-FIELD-6',
    );
  });
});

test('R-ERR-1: errors are ProtocolError with rule, code and fatality', () => {
  const error = expectRule(() => client({ type: 'ping', rid: 'x' }), 'R-MSG-2');
  expect(error).toBeInstanceOf(Error);
  expect(error.name).toBe('ProtocolError');
  expect(error.fatal).toBe(false);
  expect(error.message.startsWith('R-MSG-2: ')).toBe(true);
  expect(new ProtocolError('R-X-1', 'm').code).toBe('malformed_message');
});
