/**
 * The direct path's negotiation against the real daemon through the real relay, from a phone that sends
 * what it likes (tests/helpers/raw-session.ts): malformed and oversized offers get a clear error and the
 * relay path carries on; with the policy off a valid offer is refused; a hostile relay frame closes the
 * connection instead of being believed; the network policy from the CLI. [SPEC: R-DIRECT-1/2/3, R-PATH-5,
 * R-NET-1/3]
 *
 * The daemon runs in a test network namespace (netns.ts) although no offer here may reach WebRTC: if one
 * ever did, its candidates would stay inside.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ErrorCode } from '@burrow/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM_OFFER, FIREFOX_OFFER } from '../../protocol/test/direct-samples.js';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { BurrowDaemon, type PairedPhone, until } from '../helpers/burrow-daemon.js';
import { TestNetwork } from '../helpers/netns.js';
import { RawSession } from '../helpers/raw-session.js';
import { stopAll } from '../helpers/stop-all.js';

let net: TestNetwork;
let relay: RelayHandle;
let daemon: BurrowDaemon;
let phone: PairedPhone;
let session: RawSession;

beforeAll(async () => {
  net = await TestNetwork.create();
  relay = await startRelay();
  await net.home.forwardToRoot(relay.port);
  daemon = await BurrowDaemon.start({ direct: true, wrap: (file, args) => net.home.command(file, args) });
  await daemon.enroll(relay.url);
  phone = await daemon.pairPhone('raw phone');
  session = await RawSession.open(relay.wsUrl, phone.pairing);
}, 120_000);

afterAll(() =>
  stopAll(
    async () => session?.close(),
    async () => {
      if (daemon !== undefined) expect(await daemon.stop()).toBe(0);
    },
    async () => relay?.stop(),
    async () => net?.close(),
  ),
);

let rid = 100;
/** The relay path still carries the session: a ping is answered. */
async function stillAlive(s: RawSession) {
  const r = ++rid;
  s.sendMessage({ type: 'ping', rid: r });
  await s.until((m) => m.type === 'pong' && m.rid === r);
}

async function refusal(s: RawSession, r: number) {
  const m = await s.until((x) => x.type === 'error' && x.rid === r);
  if (m.type !== 'error') throw new Error('not an error');
  return m;
}

describe('R-NET-3: the phone hears the policy', () => {
  it('right after the directory: direct allowed, no ICE servers', async () => {
    const m = await session.until((x) => x.type === 'network-policy');
    expect(m).toEqual({ type: 'network-policy', rid: null, policy: { direct: 'allowed', iceServers: [] } });
  });
});

describe('R-DIRECT-2 / R-DIRECT-3: a malformed or oversized offer gets a clear error; the relay path goes on', () => {
  it('an offer with an audio section', async () => {
    const r = ++rid;
    session.sendJson({
      type: 'direct-offer',
      rid: r,
      sdp: `${CHROMIUM_OFFER}m=audio 9 UDP/TLS/RTP/SAVPF 0\r\n`,
    });
    const e = await refusal(session, r);
    expect(e.code).toBe(ErrorCode.MALFORMED_MESSAGE);
    expect(e.message).toMatch(/^R-DIRECT-2: .*one media section/);
    await stillAlive(session);
  });

  it('an offer of 200 KB', async () => {
    const r = ++rid;
    session.sendJson({
      type: 'direct-offer',
      rid: r,
      sdp: `${FIREFOX_OFFER}${'a=x-pad:y\r\n'.repeat(20_000)}`,
    });
    const e = await refusal(session, r);
    expect(e.message).toMatch(/^R-DIRECT-2: .*at most 16384 bytes/);
    await stillAlive(session);
  });

  it('an offer without a DTLS fingerprint (nothing would bind the channel to this session)', async () => {
    const r = ++rid;
    const sdp = CHROMIUM_OFFER.split('\r\n')
      .filter((l) => !l.startsWith('a=fingerprint'))
      .join('\r\n');
    session.sendJson({ type: 'direct-offer', rid: r, sdp });
    expect((await refusal(session, r)).message).toMatch(/sha-256 DTLS fingerprint/);
    await stillAlive(session);
  });

  it('a candidate that is not one', async () => {
    session.sendJson({
      type: 'direct-candidate',
      candidate: 'candidate:1 1 UDP 1 10.0.0.1 99999 typ host',
      mid: '0',
    });
    const e = await session.until(
      (x) => x.type === 'error' && x.rid === null && /R-DIRECT-3/.test(x.message),
    );
    expect(e.type).toBe('error');
    await stillAlive(session);
    // Nothing reached WebRTC: no direct path was ever attempted.
    expect(daemon.log).not.toMatch(/direct: /);
  });
});

describe('R-NET-1: the network policy', () => {
  it('burrow settings shows and sets it; a bad value is refused with the rule', async () => {
    const all = await daemon.json<Record<string, unknown>>('settings', '--json');
    expect(all).toMatchObject({ direct: 'allowed', iceServers: [] });
    expect((await daemon.cli('settings', 'get', 'iceServers')).stdout).toMatch(/none/);
    const set = await daemon.cli('settings', 'set', 'iceServers', 'stun:stun.example.org:3478');
    expect(set.code, set.stderr).toBe(0);
    expect((await daemon.json<{ iceServers: unknown }>('settings', '--json')).iceServers).toEqual([
      { url: 'stun:stun.example.org:3478' },
    ]);
    const bad = await daemon.cli('settings', 'set', 'iceServers', 'http://example.org');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/R-NET-2/);
    expect((await daemon.cli('settings', 'set', 'direct', 'maybe')).code).toBe(2);
    expect((await daemon.cli('settings', 'set', 'iceServers', 'none')).code).toBe(0);
  });

  it('off: every phone hears it, and a valid offer is refused direct_unavailable', async () => {
    expect((await daemon.cli('settings', 'set', 'direct', 'off')).code).toBe(0);
    await session.until((x) => x.type === 'network-policy' && x.policy.direct === 'off');
    const r = ++rid;
    session.sendMessage({ type: 'direct-offer', rid: r, sdp: CHROMIUM_OFFER });
    const e = await refusal(session, r);
    expect(e.code).toBe(ErrorCode.DIRECT_UNAVAILABLE);
    expect(e.message).toMatch(/off on this computer/);
    await stillAlive(session);
    expect((await daemon.json<{ direct: { policy: string } }>('status', '--json')).direct.policy).toBe('off');
  });

  it('the phone may change it (network-policy-set) and hears the result', async () => {
    const r = ++rid;
    session.sendMessage({
      type: 'network-policy-set',
      rid: r,
      policy: { direct: 'allowed', iceServers: [] },
    });
    const m = await session.until((x) => x.type === 'network-policy' && x.rid === r);
    expect(m).toMatchObject({ policy: { direct: 'allowed' } });
    expect((await daemon.json<{ direct: string }>('settings', '--json')).direct).toBe('allowed');
  });

  it('a policy file that cannot be trusted reads as off, and says so', async () => {
    const path = join(daemon.stateDir, 'network-policy.json');
    writeFileSync(path, '{ not json', { mode: 0o600 });
    // The daemon caches what it read; a restart reads the file again.
    expect(await daemon.stop()).toBe(0);
    daemon = await BurrowDaemon.start({
      stateDir: daemon.stateDir,
      wrap: (file, args) => net.home.command(file, args),
    });
    await until(
      async () =>
        (await daemon.json<{ relay: { state: string } }>('status', '--json')).relay.state === 'connected',
      'the relay link',
    );
    expect((await daemon.json<{ direct: { policy: string } }>('status', '--json')).direct.policy).toBe('off');
    await until(() => /network policy: .*not valid JSON.*direct path is off/.test(daemon.log), 'the warning');
    expect((await daemon.cli('settings', 'set', 'direct', 'allowed')).code).toBe(0);
    session = await RawSession.open(relay.wsUrl, phone.pairing);
  });
});

describe('R-PATH-5: a relay that alters is refused, never believed', () => {
  it('a carrier frame the relay made up (a RESUME for messages never sent) closes the connection', async () => {
    const s = await RawSession.open(relay.wsUrl, phone.pairing);
    s.socket.send(Uint8Array.of(0x01, 0, 0, 0, 0, 0, 0, 0, 99));
    expect((await s.socket.closed).code).toBe(4107);
    await until(() => /broke the protocol \(R-PATH-5\)/.test(daemon.log), 'the log line');
    await stillAlive(session);
  });
});
