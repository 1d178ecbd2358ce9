/** fast-check generators for every valid remote message, shared by the round-trip and property tests. */
import fc from 'fast-check';
import { ErrorCode } from '../src/error-codes.js';
import {
  type BurrowMessage,
  type ClientMessage,
  MAX_AGENT_NAME_CHARS,
  MAX_ARG_CHARS,
  MAX_COMMAND_CHARS,
  MAX_CONVERSATION_ID_CHARS,
  MAX_CWD_CHARS,
  MAX_DEVICE_INFO_CHARS,
  MAX_ERROR_TEXT_CHARS,
  MAX_LABEL_CHARS,
  MAX_NOTIFICATION_BODY_CHARS,
  MAX_NOTIFICATION_TITLE_CHARS,
  MAX_RID,
  MAX_TITLE_CHARS,
  MAX_WATCH_KEY_CHARS,
  NOTIFICATION_SOURCES,
  type PairBurrowMessage,
  type PairClientMessage,
  type PushTestOutcome,
  SESSION_STATUSES,
  type SessionEntry,
} from '../src/remote/index.js';
import {
  CHROMIUM_OFFER,
  CHROMIUM_OFFER_NO_CANDIDATES,
  FIREFOX_OFFER,
  NDC_ANSWER,
  NDC_ANSWER_NO_CANDIDATES,
  REAL_CANDIDATES,
} from './direct-samples.js';

/** Real engine offers and answers (direct-samples.ts), each with or without its candidates. */
const offerSdp = fc.constantFrom(CHROMIUM_OFFER, CHROMIUM_OFFER_NO_CANDIDATES, FIREFOX_OFFER);
const answerSdp = fc.constantFrom(NDC_ANSWER, NDC_ANSWER_NO_CANDIDATES);
const iceCandidate = fc.constantFrom(...REAL_CANDIDATES);
const iceMid = fc.stringMatching(/^[A-Za-z0-9_.+-]{1,32}$/);
const iceServer = fc.oneof(
  fc
    .tuple(fc.constantFrom('stun', 'stuns'), fc.stringMatching(/^[a-z][a-z0-9]{0,20}\.org$/))
    .map(([scheme, host]) => ({ url: `${scheme}:${host}` })),
  fc
    .tuple(fc.stringMatching(/^[a-z][a-z0-9]{0,20}\.net$/), fc.stringMatching(/^[\x21-\x7e]{1,40}$/))
    .map(([host, secret]) => ({ url: `turn:${host}:3478`, username: 'burrow', credential: secret })),
);
const networkPolicy = fc.record({
  direct: fc.constantFrom('allowed' as const, 'off' as const),
  iceServers: fc.uniqueArray(iceServer, { maxLength: 4, selector: (s) => s.url }),
});

const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]/g;

/** Display text: any code points (astral included) minus the forbidden ones, within the bound. */
export const displayText = (max: number, min = 0) =>
  fc
    .string({ unit: 'binary', minLength: min, maxLength: Math.min(max, 40) })
    .map((s) => s.replace(FORBIDDEN, ''))
    .filter((s) => [...s].length >= min);

/** Text at its exact bound (to prove bounds are inclusive). */
export const fullText = (max: number) => fc.constantFrom('a'.repeat(max), '😀'.repeat(max), 'é'.repeat(max));

export const sessionId = fc.stringMatching(/^[A-Za-z0-9_-]{1,32}$/);
export const rid = fc.integer({ min: 1, max: MAX_RID });
export const offset = fc.oneof(fc.integer({ min: 0, max: 1 << 20 }), fc.maxSafeNat());
export const timestamp = fc.integer({ min: 0, max: 9_999_999_999_999 });
export const cols = fc.integer({ min: 1, max: 1000 });
export const rows = fc.integer({ min: 1, max: 1000 });
export const bytes = (max = 256) => fc.uint8Array({ minLength: 1, maxLength: max });
const base64url = (n: number) =>
  fc.uint8Array({ minLength: n, maxLength: n }).map((b) => Buffer.from(b).toString('base64url'));
const ms = fc.integer({ min: 0, max: 86_400_000 });

/** R-BUILD-1 paths: /-separated segments of [A-Za-z0-9._~-], none `.` or `..`. */
export const buildPath = fc
  .array(
    fc.stringMatching(/^[A-Za-z0-9._~-]{1,12}$/).filter((s) => s !== '.' && s !== '..'),
    { minLength: 1, maxLength: 3 },
  )
  .map((segments) => `/${segments.join('/')}`);

/** A build's files in R-BUILD-1 order (code-unit order of paths, each once). */
export const buildFiles = fc
  .uniqueArray(fc.record({ path: buildPath, sha256: base64url(32) }), {
    maxLength: 6,
    selector: (f) => f.path,
  })
  .map((files) => [...files].sort((a, b) => (a.path < b.path ? -1 : 1)));

export const notification = fc.record({
  source: fc.constantFrom(...NOTIFICATION_SOURCES),
  title: displayText(MAX_NOTIFICATION_TITLE_CHARS),
  body: displayText(MAX_NOTIFICATION_BODY_CHARS),
});

export const sessionEntry: fc.Arbitrary<SessionEntry> = fc
  .record({
    id: sessionId,
    name: displayText(MAX_LABEL_CHARS, 1),
    title: displayText(MAX_TITLE_CHARS),
    cwd: fc.option(displayText(MAX_CWD_CHARS)),
    command: fc.option(displayText(MAX_COMMAND_CHARS)),
    watchKey: fc.option(displayText(MAX_WATCH_KEY_CHARS, 1)),
    cols,
    rows,
    exitCode: fc.option(fc.integer({ min: -255, max: 255 })),
    createdAt: fc.integer({ min: 0, max: 5_000_000_000_000 }),
    idleMs: fc.integer({ min: 0, max: 4_000_000_000_000 }),
    outputOffset: offset,
    ring: fc.option(fc.tuple(timestamp, sessionId)),
    status: fc.constantFrom(...SESSION_STATUSES.filter((s) => s !== 'ALERT_RINGING')),
    todo: fc.boolean(),
    notification: fc.option(notification),
    awaited: fc.boolean(),
    exited: fc.boolean(),
    // R-DIR-9: a session is either resumable (exited, R-DIR-8) or resumed, or neither.
    recovery: fc.option(
      fc.record({
        how: fc.constantFrom('resumable', 'resumed'),
        agent: displayText(MAX_AGENT_NAME_CHARS, 1),
        conversation: displayText(MAX_CONVERSATION_ID_CHARS, 1),
      }),
    ),
  })
  .map(({ idleMs, ring, exitCode, exited, status, recovery, ...e }) => ({
    ...e,
    exited: exited || exitCode !== null || recovery?.how === 'resumable',
    // R-DIR-8: only an exited session is resumable; absent as often as present.
    ...(recovery !== null
      ? { [recovery.how]: { agent: recovery.agent, conversation: recovery.conversation } }
      : {}),
    exitCode,
    lastActivityAt: e.createdAt + idleMs,
    status: ring ? 'ALERT_RINGING' : status,
    ringing: ring !== null,
    ringingSince: ring?.[0] ?? null,
    episodeId: ring?.[1] ?? null,
  }));

const settings = fc.record({
  inactivityTimeoutMs: ms,
  deferAlertsUntilQuiet: fc.boolean(),
  pushEnabled: fc.boolean(),
  pushDelayMs: ms,
});
const watchRules = fc.uniqueArray(displayText(MAX_WATCH_KEY_CHARS, 1), { maxLength: 8 });
const snapshot = {
  session: sessionId,
  offset,
  cols,
  rows,
  firstLine: offset,
  hasOlder: fc.boolean(),
  data: fc.string({ unit: 'binary', maxLength: 200 }),
};

// The generators are checked against the schemas at run time (every generated value must decode), so their
// static type is left loose here.
// biome-ignore lint/suspicious/noExplicitAny: see above
const t = (type: string, fields: Record<string, fc.Arbitrary<unknown>>): fc.Arbitrary<any> =>
  fc.record({ type: fc.constant(type), ...fields });

/** One generator per ClientMessage type, keyed by type (a test checks the keys cover the schema). */
export const clientMessages: Record<string, fc.Arbitrary<ClientMessage>> = {
  hello: t('hello', {
    appVersion: fc.stringMatching(/^[\x21-\x7e]{1,32}$/),
    viewer: fc.constantFrom('pocket', 'cli', 'test'),
    cols,
    rows,
  }),
  ping: t('ping', { rid }),
  ack: t('ack', { received: offset }),
  attach: fc.record(
    {
      type: fc.constant('attach'),
      rid,
      session: sessionId,
      cols,
      rows,
      resumeFrom: offset,
      scrollbackFrom: offset,
    },
    { requiredKeys: ['type', 'rid', 'session', 'cols', 'rows'] },
  ),
  detach: t('detach', { session: sessionId }),
  history: t('history', {
    rid,
    session: sessionId,
    beforeLine: offset,
    maxLines: fc.integer({ min: 1, max: 10_000 }),
  }),
  resize: t('resize', { session: sessionId, cols, rows }),
  fit: t('fit', { session: sessionId, cols, rows }),
  presence: t('presence', {
    state: fc.constantFrom('present', 'idle', 'away'),
    focused: fc.boolean(),
    visible: fc.boolean(),
  }),
  focus: t('focus', { session: fc.option(sessionId) }),
  acknowledge: t('acknowledge', { session: sessionId, withInput: fc.boolean() }),
  todo: t('todo', { session: sessionId, action: fc.constantFrom('on', 'off', 'toggle') }),
  dismiss: t('dismiss', { session: sessionId }),
  create: t('create', {
    rid,
    argv: fc.option(
      fc.array(
        fc
          .string({ unit: 'binary', minLength: 1, maxLength: Math.min(MAX_ARG_CHARS, 30) })
          .map((s) => s.replaceAll('\0', 'x')),
        { minLength: 1, maxLength: 6 },
      ),
    ),
    cwd: fc.option(displayText(MAX_CWD_CHARS, 1)),
    name: fc.option(displayText(MAX_LABEL_CHARS, 1)),
    cols,
    rows,
  }),
  rename: t('rename', { rid, session: sessionId, name: displayText(MAX_LABEL_CHARS, 1) }),
  kill: t('kill', { rid, session: sessionId }),
  clear: t('clear', { rid, session: sessionId }),
  resume: t('resume', { rid, session: sessionId }),
  'push-status': t('push-status', { rid }),
  'push-test': t('push-test', { rid }),
  'settings-get': t('settings-get', { rid }),
  'settings-set': t('settings-set', {
    rid,
    patch: fc
      .record(
        {
          inactivityTimeoutMs: ms,
          deferAlertsUntilQuiet: fc.boolean(),
          pushEnabled: fc.boolean(),
          pushDelayMs: ms,
        },
        { requiredKeys: [] },
      )
      .filter((p) => Object.keys(p).length > 0),
  }),
  'watch-rules-get': t('watch-rules-get', { rid }),
  'watch-rules-set': t('watch-rules-set', { rid, rules: watchRules }),
  'forget-me': t('forget-me', { rid }),
  'direct-offer': t('direct-offer', { rid, sdp: offerSdp }),
  'direct-candidate': t('direct-candidate', { candidate: iceCandidate, mid: iceMid }),
  'network-policy-get': t('network-policy-get', { rid }),
  'network-policy-set': t('network-policy-set', { rid, policy: networkPolicy }),
  input: t('input', { session: sessionId, kind: fc.constantFrom('user', 'reply'), data: bytes() }),
};

const outcome = fc
  .tuple(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 0, max: 20 }), fc.boolean())
  .map(([a, b, none]) => {
    const targets = Math.max(a, b);
    const delivered = Math.min(a, b);
    const o: PushTestOutcome =
      targets === 0
        ? 'no_devices'
        : delivered === 0
          ? none
            ? 'no_subscriptions'
            : 'zero_delivered'
          : delivered === targets
            ? 'delivered'
            : 'partial';
    return { outcome: o, targets, delivered };
  });

export const burrowMessages: Record<string, fc.Arbitrary<BurrowMessage>> = {
  hello: t('hello', {
    burrowName: displayText(MAX_LABEL_CHARS, 1),
    protocolVersion: fc.constant(1),
    agentVersion: fc.stringMatching(/^[\x21-\x7e]{1,32}$/),
    capabilities: fc.uniqueArray(fc.stringMatching(/^[a-z0-9][a-z0-9.-]{0,31}$/), { maxLength: 5 }),
  }),
  pong: t('pong', { rid }),
  'input-ack': t('input-ack', { received: offset }),
  directory: t('directory', {
    sessions: fc.uniqueArray(sessionEntry, { maxLength: 4, selector: (e) => e.id }),
  }),
  'directory-upsert': t('directory-upsert', { entry: sessionEntry }),
  'directory-remove': t('directory-remove', { session: sessionId }),
  attached: t('attached', { rid, ...snapshot }),
  resumed: t('resumed', { rid, session: sessionId, offset, cols, rows }),
  resync: t('resync', snapshot),
  'history-page': t('history-page', {
    rid,
    session: sessionId,
    firstLine: fc.integer({ min: 0, max: 2 ** 40 }),
    lines: fc.integer({ min: 0, max: 10_000 }),
    hasOlder: fc.boolean(),
    data: fc.string({ unit: 'binary', maxLength: 200 }),
  }).map(({ lines, ...m }) => ({ ...m, endLine: m.firstLine + lines })),
  'size-changed': t('size-changed', {
    session: sessionId,
    cols,
    rows,
    cause: fc.constantFrom('attach', 'fit', 'resize', 'handover', 'away', 'return'),
    holder: fc.constantFrom('you', 'local', 'remote', null),
    holderAway: fc.boolean(),
  }),
  ok: t('ok', { rid }),
  created: t('created', { rid, session: sessionId }),
  'push-status': t('push-status', { rid, pushEnabled: fc.boolean(), subscribed: fc.option(fc.boolean()) }),
  'push-test-result': fc.tuple(rid, outcome).map(([r, o]) => ({ type: 'push-test-result', rid: r, ...o })),
  settings: t('settings', { rid: fc.option(rid), settings }),
  'watch-rules': t('watch-rules', { rid: fc.option(rid), rules: watchRules }),
  'pocket-build': t('pocket-build', { files: fc.option(buildFiles) }),
  'direct-answer': t('direct-answer', {
    rid,
    sdp: answerSdp,
    rejoin: base64url(16),
  }),
  'direct-candidate': t('direct-candidate', { candidate: iceCandidate, mid: iceMid }),
  'network-policy': t('network-policy', { rid: fc.option(rid), policy: networkPolicy }),
  error: t('error', {
    rid: fc.option(rid),
    code: fc.constantFrom(...Object.values(ErrorCode)),
    message: displayText(MAX_ERROR_TEXT_CHARS),
  }),
  output: t('output', { session: sessionId, offset, data: bytes() }),
};

export const pairClientMessages: Record<string, fc.Arbitrary<PairClientMessage>> = {
  'pair-request': t('pair-request', {
    label: displayText(MAX_LABEL_CHARS, 1),
    platform: displayText(MAX_DEVICE_INFO_CHARS),
    userAgent: displayText(MAX_DEVICE_INFO_CHARS),
  }),
};

export const pairBurrowMessages: Record<string, fc.Arbitrary<PairBurrowMessage>> = {
  'pair-pending': t('pair-pending', {}),
  'pair-accepted': t('pair-accepted', {
    deviceId: sessionId,
    psk: base64url(32),
    deliveryId: base64url(16),
    deliveryToken: base64url(32),
    burrowId: base64url(16),
    burrowName: displayText(MAX_LABEL_CHARS, 1),
    relayUrl: fc.constantFrom(
      'https://relay.example.com',
      'http://127.0.0.1:8787',
      'https://r.example/base/path',
    ),
  }),
  'pair-rejected': t('pair-rejected', { reason: fc.constantFrom('declined', 'timeout', 'limit') }),
  error: t('error', {
    rid: fc.constant(null),
    code: fc.constantFrom(...Object.values(ErrorCode)),
    message: displayText(MAX_ERROR_TEXT_CHARS),
  }),
};

export const anyClientMessage = fc.oneof(...Object.values(clientMessages));
export const anyBurrowMessage = fc.oneof(...Object.values(burrowMessages));
