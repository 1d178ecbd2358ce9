/**
 * What a direct-path description may hold: a data-channel-only SDP (RFC 8866, as JSEP / RFC 8829 produces it
 * for one `RTCDataChannel`) and trickled ICE candidates (RFC 8839 §5.1). [SPEC: R-DIRECT-2, R-DIRECT-3]
 *
 * Both travel inside Noise, so the relay can neither read nor alter them; these checks are against the peer: a
 * modified Pocket (the relay serves its code) or a buggy one must not reach the WebRTC stack's own SDP parser
 * with media sections, control characters, megabytes of lines or a description without a DTLS fingerprint —
 * the fingerprint is what binds the DTLS handshake to this Noise session (SPEC "The direct path").
 * Hand-written because no maintained SDP library validates rather than parses leniently, and the grammar
 * needed here is a few lines.
 */
import { ProtocolError } from './errors.js';
import {
  MAX_DIRECT_CANDIDATES,
  MAX_DIRECT_MESSAGE_BYTES,
  MAX_ICE_CANDIDATE_CHARS,
  MAX_ICE_MID_CHARS,
  MAX_SDP_BYTES,
  MAX_SDP_LINE_CHARS,
  MAX_SDP_LINES,
} from './limits.js';

/** What the checks learned from a description, for the caller's own decisions. */
export interface DirectSdpSummary {
  /** The `a=candidate:` values (without `a=`), in order. */
  readonly candidates: readonly string[];
  /** `a=max-message-size` (0: no limit), or null when absent (then 65536, RFC 8841 §6). */
  readonly maxMessageSize: number | null;
}

const fail = (rule: string, why: string): never => {
  throw new ProtocolError(rule, why);
};

// RFC 8839 §5.1: foundation = 1*32 ice-char; component 1–3 digits; priority ≤ 10 digits; cand-type four words;
// connection-address an IPv4, IPv6 or DNS name (browsers' mDNS names are `<uuid>.local`); then raddr / rport
// and extension name/value pairs (`generation 0`, `ufrag …`, `network-cost 999`, `tcptype active`).
const ADDRESS = String.raw`(?:[0-9]{1,3}(?:\.[0-9]{1,3}){3}|[0-9A-Fa-f:.]{2,45}|[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*)`;
const PORT = '[0-9]{1,5}';
const CANDIDATE = new RegExp(
  `^candidate:[A-Za-z0-9+/]{1,32} [0-9]{1,3} (?:UDP|udp|TCP|tcp) [0-9]{1,10} (${ADDRESS}) (${PORT}) typ (?:host|srflx|prflx|relay)` +
    String.raw`(?: raddr ${ADDRESS} rport (${PORT}))?((?: [A-Za-z0-9_-]{1,32} [\x21-\x7e]{1,256})*)$`,
);
const MID = /^[A-Za-z0-9_.+-]{1,32}$/;

function portOk(text: string | undefined): boolean {
  return text === undefined || Number(text) <= 65_535;
}

/**
 * R-DIRECT-3: one ICE candidate as an `RTCIceCandidate.candidate` string (no `a=` prefix), at most
 * MAX_ICE_CANDIDATE_CHARS of printable ASCII. Throws ProtocolError('R-DIRECT-3').
 */
export function checkIceCandidate(candidate: string): void {
  if (candidate.length > MAX_ICE_CANDIDATE_CHARS)
    fail('R-DIRECT-3', `a candidate is at most ${MAX_ICE_CANDIDATE_CHARS} characters`);
  const m = CANDIDATE.exec(candidate);
  if (m === null || !portOk(m[2]) || !portOk(m[3]))
    fail('R-DIRECT-3', 'a candidate follows RFC 8839 §5.1 (candidate:foundation component transport …)');
}

/** R-DIRECT-3: a candidate's media id (`sdpMid`): 1–MAX_ICE_MID_CHARS of [A-Za-z0-9_.+-]. */
export function isIceMid(mid: unknown): mid is string {
  return typeof mid === 'string' && mid.length <= MAX_ICE_MID_CHARS && MID.test(mid);
}

/** The host of a candidate (its connection-address), e.g. to tell an mDNS `.local` name from an address. */
export function candidateAddress(candidate: string): string {
  return candidate.split(' ')[4] ?? '';
}

const FINGERPRINT = /^a=fingerprint:sha-256 [0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){31}$/;
const ANY_FINGERPRINT = /^a=fingerprint:[A-Za-z0-9-]{1,16} [0-9A-Fa-f]{2}(?::[0-9A-Fa-f]{2}){15,63}$/;
const M_LINE = /^m=application [0-9]{1,5} UDP\/DTLS\/SCTP webrtc-datachannel$/;
const ICE_UFRAG = /^a=ice-ufrag:[A-Za-z0-9+/]{4,256}$/;
const ICE_PWD = /^a=ice-pwd:[A-Za-z0-9+/]{22,256}$/;
const LINE = /^[a-z]=[\x20-\x7e]*$/;

/**
 * R-DIRECT-2: a description of one data channel and nothing else. Checks the whole text and returns what the
 * caller needs; throws ProtocolError('R-DIRECT-2' or 'R-DIRECT-3' / 'R-DIRECT-4' for its candidates).
 * `kind` is the JSEP type the description must be: an offer says `a=setup:actpass`, an answer `active` or
 * `passive` (RFC 8842 §5.2).
 */
export function checkDirectSdp(sdp: string, kind: 'offer' | 'answer'): DirectSdpSummary {
  if (sdp.length > MAX_SDP_BYTES) fail('R-DIRECT-2', `an SDP is at most ${MAX_SDP_BYTES} bytes`);
  // RFC 8866 §5: lines end with CRLF; a final empty line is the text's trailing CRLF.
  const lines = sdp.split('\r\n');
  if (lines.at(-1) === '') lines.pop();
  if (lines.length > MAX_SDP_LINES) fail('R-DIRECT-2', `an SDP has at most ${MAX_SDP_LINES} lines`);
  if (lines[0] !== 'v=0') fail('R-DIRECT-2', 'an SDP starts with v=0');
  let media = 0;
  let sha256 = 0;
  let ufrag = 0;
  let pwd = 0;
  let setup: string | null = null;
  let maxMessageSize: number | null = null;
  const candidates: string[] = [];
  for (const line of lines) {
    if (line.length > MAX_SDP_LINE_CHARS || !LINE.test(line))
      fail('R-DIRECT-2', 'SDP lines are "x=" and printable ASCII, CRLF-separated');
    if (line.startsWith('m=')) {
      media++;
      if (!M_LINE.test(line))
        fail('R-DIRECT-2', 'the one media section is m=application … webrtc-datachannel');
    } else if (line.startsWith('a=fingerprint:')) {
      if (!ANY_FINGERPRINT.test(line)) fail('R-DIRECT-2', 'a fingerprint is a hash name and hex bytes');
      if (FINGERPRINT.test(line)) sha256++;
    } else if (line.startsWith('a=ice-ufrag:')) {
      ufrag++;
      if (!ICE_UFRAG.test(line)) fail('R-DIRECT-2', 'ice-ufrag is 4–256 ice-chars');
    } else if (line.startsWith('a=ice-pwd:')) {
      pwd++;
      if (!ICE_PWD.test(line)) fail('R-DIRECT-2', 'ice-pwd is 22–256 ice-chars');
    } else if (line.startsWith('a=setup:')) {
      if (setup !== null) fail('R-DIRECT-2', 'one a=setup');
      setup = line.slice('a=setup:'.length);
    } else if (line.startsWith('a=max-message-size:')) {
      const text = line.slice('a=max-message-size:'.length);
      if (!/^[0-9]{1,10}$/.test(text)) fail('R-DIRECT-2', 'max-message-size is a number');
      maxMessageSize = Number(text);
    } else if (line.startsWith('a=candidate:')) {
      const candidate = line.slice(2);
      checkIceCandidate(candidate);
      candidates.push(candidate);
      if (candidates.length > MAX_DIRECT_CANDIDATES)
        fail('R-DIRECT-4', `at most ${MAX_DIRECT_CANDIDATES} candidates per direct path`);
    }
  }
  if (media !== 1) fail('R-DIRECT-2', 'an SDP has exactly one media section, the data channel');
  if (sha256 < 1) fail('R-DIRECT-2', 'an SDP carries a sha-256 DTLS fingerprint');
  if (ufrag !== 1 || pwd !== 1) fail('R-DIRECT-2', 'an SDP has one ice-ufrag and one ice-pwd');
  const setups = kind === 'offer' ? ['actpass'] : ['active', 'passive'];
  if (setup === null || !setups.includes(setup))
    fail('R-DIRECT-2', `an ${kind} says a=setup:${setups.join(' or ')}`);
  if (maxMessageSize !== null && maxMessageSize !== 0 && maxMessageSize < MAX_DIRECT_MESSAGE_BYTES)
    fail('R-DIRECT-2', `the peer must take messages of ${MAX_DIRECT_MESSAGE_BYTES} bytes (max-message-size)`);
  return { candidates, maxMessageSize };
}
