// The direct path's descriptions, candidates, messages and network policy. [SPEC: R-DIRECT-1 … R-DIRECT-4,
// R-DIRECT-6, R-NET-1 … R-NET-3]
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import {
  candidateAddress,
  checkDirectSdp,
  checkIceCandidate,
  DEFAULT_NETWORK_POLICY,
  decodeBurrowMessage,
  decodeClientMessage,
  encodeBurrowMessage,
  encodeClientMessage,
  isIceMid,
  isIceUrl,
  MAX_DIRECT_CANDIDATES,
  MAX_ICE_CANDIDATE_CHARS,
  MAX_ICE_SERVERS,
  MAX_SDP_BYTES,
  ProtocolError,
  parseNetworkPolicy,
} from '../src/remote/index.js';
import {
  CHROMIUM_OFFER,
  CHROMIUM_OFFER_NO_CANDIDATES,
  FIREFOX_OFFER,
  NDC_ANSWER,
  NDC_ANSWER_NO_CANDIDATES,
  REAL_CANDIDATES,
} from './direct-samples.js';
import { controlOf, expectRule, FC } from './helpers.js';

const lines = (sdp: string) => sdp.split('\r\n');
const withLines = (sdp: string, edit: (l: string[]) => string[]) => edit(lines(sdp)).join('\r\n');

describe('R-DIRECT-2: a description of one data channel', () => {
  test.each([
    ['Chromium offer', CHROMIUM_OFFER, 'offer', 1],
    ['Chromium offer before gathering', CHROMIUM_OFFER_NO_CANDIDATES, 'offer', 0],
    ['Firefox offer', FIREFOX_OFFER, 'offer', 2],
    ['node-datachannel answer', NDC_ANSWER, 'answer', 1],
    ['node-datachannel answer before gathering', NDC_ANSWER_NO_CANDIDATES, 'answer', 0],
  ] as const)('a real %s passes, its candidates listed', (_, sdp, kind, n) => {
    expect(checkDirectSdp(sdp, kind).candidates).toHaveLength(n);
  });

  test('an offer is not an answer, nor the other way round (a=setup)', () => {
    expectRule(() => checkDirectSdp(CHROMIUM_OFFER, 'answer'), 'R-DIRECT-2');
    expectRule(() => checkDirectSdp(NDC_ANSWER, 'offer'), 'R-DIRECT-2');
  });

  test.each([
    ['an audio section', (l: string[]) => [...l.slice(0, -1), 'm=audio 9 UDP/TLS/RTP/SAVPF 111', '']],
    [
      'a second data channel section',
      (l: string[]) => [...l, 'm=application 9 UDP/DTLS/SCTP webrtc-datachannel'],
    ],
    ['no media section', (l: string[]) => l.filter((x) => !x.startsWith('m='))],
    ['no fingerprint', (l: string[]) => l.filter((x) => !x.startsWith('a=fingerprint'))],
    [
      'only a sha-1 fingerprint',
      (l: string[]) =>
        l.map((x) =>
          x.startsWith('a=fingerprint') ? `a=fingerprint:sha-1 ${Array(20).fill('AB').join(':')}` : x,
        ),
    ],
    ['no ice-pwd', (l: string[]) => l.filter((x) => !x.startsWith('a=ice-pwd'))],
    ['a NUL in a line', (l: string[]) => l.map((x) => (x.startsWith('s=') ? 's=\u0000' : x))],
    ['an escape in a line', (l: string[]) => l.map((x) => (x.startsWith('s=') ? 's=\u001b[2J' : x))],
    ['a line that is not x=…', (l: string[]) => [...l.slice(0, 3), 'hello', ...l.slice(3)]],
    ['not starting v=0', (l: string[]) => l.slice(1)],
    ['two a=setup', (l: string[]) => [...l.slice(0, -1), 'a=setup:actpass', '']],
    [
      'a max-message-size below one direct frame',
      (l: string[]) => l.map((x) => (x.startsWith('a=max-message-size') ? 'a=max-message-size:16384' : x)),
    ],
    [
      'a malformed candidate line',
      (l: string[]) => [...l.slice(0, -1), 'a=candidate:x 1 udp 1 1.2.3.4 99999 typ host', ''],
    ],
  ])('%s is refused', (_, edit) => {
    expect(() => checkDirectSdp(withLines(CHROMIUM_OFFER, edit), 'offer')).toThrow(/^R-DIRECT-[23]: /);
  });

  test('max-message-size 0 means unlimited (RFC 8841): accepted', () => {
    const sdp = withLines(CHROMIUM_OFFER, (l) =>
      l.map((x) => (x.startsWith('a=max-message-size') ? 'a=max-message-size:0' : x)),
    );
    expect(checkDirectSdp(sdp, 'offer').maxMessageSize).toBe(0);
  });

  test(`more than ${MAX_SDP_BYTES} bytes is refused before any line is read`, () => {
    const padded = `${CHROMIUM_OFFER}${`a=x-pad:${'p'.repeat(1000)}\r\n`.repeat(17)}`;
    expect(padded.length).toBeGreaterThan(MAX_SDP_BYTES);
    expect(expectRule(() => checkDirectSdp(padded, 'offer'), 'R-DIRECT-2').message).toContain('16384 bytes');
  });

  test(`R-DIRECT-4: more than ${MAX_DIRECT_CANDIDATES} candidates are refused`, () => {
    const candidates = Array.from(
      { length: MAX_DIRECT_CANDIDATES + 1 },
      (_, i) => `a=candidate:${i} 1 UDP 2122252543 198.18.0.${i % 250} ${40000 + i} typ host`,
    );
    const sdp = withLines(CHROMIUM_OFFER_NO_CANDIDATES, (l) => [...l.slice(0, -1), ...candidates, '']);
    expectRule(() => checkDirectSdp(sdp, 'offer'), 'R-DIRECT-4');
  });
});

describe('R-DIRECT-3: ICE candidates (RFC 8839 §5.1)', () => {
  test.each(REAL_CANDIDATES)('the engines’ own %s passes', (c) => {
    expect(() => checkIceCandidate(c)).not.toThrow();
  });

  test.each([
    'candidate:1 1 UDP 2122252543 198.18.0.2 49247 typ srflx raddr 10.0.0.2 rport 5000 generation 0',
    'candidate:1 1 udp 1 2001:db8::7 1 typ relay',
    'candidate:abc+/ 256 tcp 4294967295 fe80::1 9 typ host tcptype active',
  ])('%s passes', (c) => {
    expect(() => checkIceCandidate(c)).not.toThrow();
  });

  test.each([
    ['empty', ''],
    ['no typ', 'candidate:1 1 UDP 1 198.18.0.2 5000 host'],
    ['a port over 65535', 'candidate:1 1 UDP 1 198.18.0.2 70000 typ host'],
    ['an unknown type', 'candidate:1 1 UDP 1 198.18.0.2 5000 typ magic'],
    ['an unknown transport', 'candidate:1 1 SCTP 1 198.18.0.2 5000 typ host'],
    ['a control character', 'candidate:1 1 UDP 1 198.18.0.2 5000 typ host\u0007'],
    ['two spaces', 'candidate:1 1 UDP 1  198.18.0.2 5000 typ host'],
    ['the a= prefix', 'a=candidate:1 1 UDP 1 198.18.0.2 5000 typ host'],
    ['too long', `candidate:1 1 UDP 1 198.18.0.2 5000 typ host x ${'y'.repeat(MAX_ICE_CANDIDATE_CHARS)}`],
  ])('%s is refused', (_, c) => {
    expectRule(() => checkIceCandidate(c), 'R-DIRECT-3');
  });

  test('the connection address of a candidate, an mDNS name or an address', () => {
    expect(candidateAddress(REAL_CANDIDATES[0]!)).toMatch(/\.local$/);
    expect(candidateAddress(REAL_CANDIDATES.at(-1)!)).toBe('198.18.0.2');
  });

  test('mids', () => {
    expect(isIceMid('0')).toBe(true);
    expect(isIceMid('data')).toBe(true);
    expect(isIceMid('')).toBe(false);
    expect(isIceMid('a b')).toBe(false);
    expect(isIceMid('x'.repeat(33))).toBe(false);
  });
});

describe('R-DIRECT-1: the direct-path messages', () => {
  test('direct-offer, direct-candidate and the answer round-trip', () => {
    const offer = { type: 'direct-offer', rid: 7, sdp: FIREFOX_OFFER } as const;
    expect(decodeClientMessage(encodeClientMessage(offer))).toEqual(offer);
    const candidate = { type: 'direct-candidate', candidate: REAL_CANDIDATES[0]!, mid: '0' } as const;
    expect(decodeClientMessage(encodeClientMessage(candidate))).toEqual(candidate);
    expect(decodeBurrowMessage(encodeBurrowMessage(candidate))).toEqual(candidate);
    const answer = {
      type: 'direct-answer',
      rid: 7,
      sdp: NDC_ANSWER,
      rejoin: 'AAAAAAAAAAAAAAAAAAAAAA',
    } as const;
    expect(decodeBurrowMessage(encodeBurrowMessage(answer))).toEqual(answer);
  });

  test('an oversized offer is one bad message (not fatal), answered with its rid and the reason', () => {
    const big = `${CHROMIUM_OFFER}${'a=x:y\r\n'.repeat(3000)}`;
    const error = expectRule(
      () => decodeClientMessage(controlOf({ type: 'direct-offer', rid: 9, sdp: big })),
      'R-DIRECT-2',
      { fatal: false, rid: 9 },
    );
    expect(error.message).toContain('at most');
  });

  test('an offer with an audio section is refused, never passed on', () => {
    const sdp = `${CHROMIUM_OFFER}m=audio 9 UDP/TLS/RTP/SAVPF 0\r\n`;
    expectRule(() => decodeClientMessage(controlOf({ type: 'direct-offer', rid: 1, sdp })), 'R-DIRECT-2');
  });

  test('an answer as an offer is refused', () => {
    expectRule(
      () => decodeClientMessage(controlOf({ type: 'direct-offer', rid: 1, sdp: NDC_ANSWER })),
      'R-DIRECT-2',
    );
  });

  test('a candidate message with a bad candidate or mid is refused', () => {
    expectRule(
      () => decodeClientMessage(controlOf({ type: 'direct-candidate', candidate: 'x', mid: '0' })),
      'R-DIRECT-3',
    );
    expectRule(
      () =>
        decodeClientMessage(controlOf({ type: 'direct-candidate', candidate: REAL_CANDIDATES[0], mid: '' })),
      'R-DIRECT-3',
    );
  });

  test('R-DIRECT-6: the rejoin id is 16 bytes of base64url', () => {
    expectRule(
      () =>
        decodeBurrowMessage(controlOf({ type: 'direct-answer', rid: 1, sdp: NDC_ANSWER, rejoin: 'AAAA' })),
      'R-FIELD-10',
    );
  });
});

describe('R-NET-1 / R-NET-2: the network policy', () => {
  test('the default allows the direct path and names no ICE server', () => {
    expect(DEFAULT_NETWORK_POLICY).toEqual({ direct: 'allowed', iceServers: [] });
  });

  test.each([
    'stun:stun.example.org',
    'stun:stun.example.org:3478',
    'stuns:stun.example.org:5349',
    'turn:198.51.100.7:3478?transport=udp',
    'turns:[2001:db8::1]:443?transport=tcp',
  ])('%s is an ICE server URL', (url) => {
    expect(isIceUrl(url)).toBe(true);
  });

  test.each([
    'http://stun.example.org',
    'stun:',
    'stun:user@stun.example.org',
    'stun:stun.example.org:0',
    'stun:stun.example.org:65536',
    'stun:stun.example.org?transport=udp',
    'turns:x.org?transport=udp',
    'turn:x.org?transport=sctp',
    'stun: x.org',
  ])('%s is not', (url) => {
    expect(isIceUrl(url)).toBe(false);
  });

  test('TURN servers carry credentials, STUN servers none; URLs distinct; at most four', () => {
    const turn = { url: 'turn:turn.example.org', username: 'u', credential: 'p' };
    expect(parseNetworkPolicy({ direct: 'off', iceServers: [turn] }).iceServers).toEqual([turn]);
    expect(() => parseNetworkPolicy({ direct: 'allowed', iceServers: [{ url: 'turn:t.org' }] })).toThrow(
      /R-NET-2/,
    );
    expect(() =>
      parseNetworkPolicy({
        direct: 'allowed',
        iceServers: [{ url: 'stun:s.org', username: 'u', credential: 'p' }],
      }),
    ).toThrow(/R-NET-2/);
    expect(() =>
      parseNetworkPolicy({ direct: 'allowed', iceServers: [{ url: 'stun:s.org' }, { url: 'stun:s.org' }] }),
    ).toThrow(/distinct/);
    const many = Array.from({ length: MAX_ICE_SERVERS + 1 }, (_, i) => ({ url: `stun:s${i}.org` }));
    expect(() => parseNetworkPolicy({ direct: 'allowed', iceServers: many })).toThrow(/at most/);
    expect(() => parseNetworkPolicy({ direct: 'maybe', iceServers: [] })).toThrow(RangeError);
  });

  test('R-NET-3: network-policy travels with its rid, or null for a change announced', () => {
    const m = {
      type: 'network-policy' as const,
      rid: null,
      policy: { direct: 'off' as const, iceServers: [] },
    };
    expect(decodeBurrowMessage(encodeBurrowMessage(m))).toEqual(m);
    const set = {
      type: 'network-policy-set' as const,
      rid: 3,
      policy: { direct: 'allowed' as const, iceServers: [] },
    };
    expect(decodeClientMessage(encodeClientMessage(set))).toEqual(set);
  });
});

describe('R-ERR-1: random and mutated input never throws anything but ProtocolError', () => {
  const mutate = (s: string, at: number, text: string) => s.slice(0, at) + text + s.slice(at + text.length);
  test('mutated real SDPs and candidates', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(CHROMIUM_OFFER, FIREFOX_OFFER, NDC_ANSWER, ...REAL_CANDIDATES),
        fc.nat(),
        fc.string({ unit: 'binary', maxLength: 12 }),
        fc.constantFrom('offer' as const, 'answer' as const),
        (base, at, text, kind) => {
          const s = mutate(base, at % (base.length + 1), text);
          for (const run of [() => checkDirectSdp(s, kind), () => checkIceCandidate(s)]) {
            try {
              run();
            } catch (error) {
              expect(error).toBeInstanceOf(ProtocolError);
            }
          }
        },
      ),
      { ...FC, numRuns: 500 },
    );
  });
});
