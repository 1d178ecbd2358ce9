/**
 * The Burrow's end of one direct path: a node-datachannel (libdatachannel) peer connection answering a
 * phone's offer, with the one negotiated data channel the session uses (protocol/SPEC.md "The direct path",
 * R-DIRECT-5). Behind the small `DirectPeer` interface so the answerer (direct-answerer.ts) holds no WebRTC
 * detail.
 *
 * Found on this machine (shared notes, and the tests in tests/e2e/direct.e2e.test.ts):
 *  - create the data channel *after* `setRemoteDescription`: created before, it makes libdatachannel start an
 *    offer of its own that it then rolls back, and ICE came up "both controlling";
 *  - `onLocalDescription` fires before any candidate is gathered: candidates are trickled one by one;
 *  - host candidates a browser hides behind mDNS names (`<uuid>.local`) are never resolved here: resolving
 *    would block in the system resolver and could leak the lookup to the network; the browser's connectivity
 *    checks reach our host candidate anyway and libjuice learns its address as a peer-reflexive candidate.
 */
import { candidateAddress, type IceServer } from '@burrow/protocol';
import type { DataChannel, IceServer as NdcIceServer, PeerConnection } from 'node-datachannel';

export interface DirectPeerEvents {
  /** A local candidate to trickle to the phone (`candidate:…`, no `a=`). */
  candidate(candidate: string, mid: string): void;
  /** The channel opened; `remoteType` is the ICE type of the phone's end of the pair in use (host, prflx…). */
  open(remoteType: string | null): void;
  message(bytes: Uint8Array): void;
  /** The channel or the connection closed or failed, in words. Called once. */
  closed(reason: string): void;
}

export interface DirectPeer {
  /** The answer SDP (without candidates: they trickle through `candidate`). */
  readonly answer: string;
  addRemoteCandidate(candidate: string, mid: string): void;
  send(bytes: Uint8Array): boolean;
  bufferedAmount(): number;
  close(): void;
}

export type DirectPeerFactory = (
  offer: string,
  options: { readonly iceServers: readonly IceServer[]; readonly events: DirectPeerEvents },
) => Promise<DirectPeer>;

/** The label both ends give the session's channel (negotiated, id 0: no DCEP round trip). */
export const DIRECT_CHANNEL_LABEL = 'burrow';
/** How long libdatachannel may take to produce the answer description (ms). */
export const ANSWER_BUDGET_MS = 5_000;

type Ndc = typeof import('node-datachannel');
let ndcModule: Promise<Ndc> | null = null;

/** Loads the addon once; rejects (and keeps rejecting) where it cannot load, e.g. an unsupported platform. */
export function loadNodeDatachannel(): Promise<Ndc> {
  ndcModule ??= import('node-datachannel');
  return ndcModule;
}

/** ICE servers as libdatachannel takes them: STUN as its URL, TURN as an object (credentials unescaped). */
export function ndcIceServers(servers: readonly IceServer[]): (string | NdcIceServer)[] {
  return servers.map((s) => {
    const m = /^(stuns?|turns?):(\[[^\]]+\]|[^:?]+)(?::(\d+))?(?:\?transport=(udp|tcp))?$/.exec(s.url);
    if (m === null || !s.url.startsWith('turn')) return s.url;
    const scheme = m[1]!;
    const tls = scheme === 'turns';
    return {
      hostname: m[2]!.replace(/^\[|\]$/g, ''),
      port: Number(m[3] ?? (tls ? 5349 : 3478)),
      username: s.username ?? '',
      password: s.credential ?? '',
      relayType: tls ? 'TurnTls' : m[4] === 'tcp' ? 'TurnTcp' : 'TurnUdp',
    };
  });
}

/** R-DIRECT-5: an mDNS host name stands for an address this side does not resolve. */
export function isMdnsCandidate(candidate: string): boolean {
  return /\.local\.?$/i.test(candidateAddress(candidate));
}

/** The offer without its mDNS host candidates (R-DIRECT-5): the rest, and the checks, find the path. */
export function withoutMdnsCandidates(sdp: string): string {
  return sdp
    .split('\r\n')
    .filter((line) => !(line.startsWith('a=candidate:') && isMdnsCandidate(line.slice(2))))
    .join('\r\n');
}

/** A DirectPeerFactory on node-datachannel. */
export const ndcPeerFactory: DirectPeerFactory = async (offer, { iceServers, events }) => {
  const ndc = await loadNodeDatachannel();
  const pc: PeerConnection = new ndc.PeerConnection('burrow', { iceServers: ndcIceServers(iceServers) });
  let done = false;
  let channel: DataChannel | null = null;
  const close = (reason: string) => {
    if (done) return;
    done = true;
    try {
      channel?.close();
    } catch {
      // already closed by the far side
    }
    pc.close();
    events.closed(reason);
  };
  pc.onLocalCandidate((candidate, mid) => {
    if (!done) events.candidate(candidate.replace(/^a=/, ''), mid);
  });
  pc.onStateChange((state) => {
    if (state === 'failed' || state === 'disconnected' || state === 'closed')
      close(`the direct connection ${state === 'disconnected' ? 'was lost' : state}`);
  });
  const answer = new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no answer description in time')), ANSWER_BUDGET_MS);
    pc.onLocalDescription((sdp, type) => {
      clearTimeout(timer);
      if (type === 'answer') resolve(sdp);
      else reject(new Error(`libdatachannel described an ${type}, not an answer`));
    });
  });
  try {
    pc.setRemoteDescription(withoutMdnsCandidates(offer), 'offer');
    channel = pc.createDataChannel(DIRECT_CHANNEL_LABEL, { negotiated: true, id: 0 });
    const dc = channel;
    dc.onOpen(() => {
      if (!done) events.open(pc.getSelectedCandidatePair()?.remote.type ?? null);
    });
    dc.onMessage((m) => {
      if (done) return;
      if (typeof m === 'string') close('the phone sent text on the direct channel');
      else
        events.message(
          m instanceof ArrayBuffer ? new Uint8Array(m) : new Uint8Array(m.buffer, m.byteOffset, m.byteLength),
        );
    });
    dc.onClosed(() => close('the direct channel closed'));
    dc.onError((e) => close(`the direct channel failed: ${e}`));
    const sdp = await answer;
    return {
      answer: sdp,
      addRemoteCandidate(candidate, mid) {
        if (!done && !isMdnsCandidate(candidate)) pc.addRemoteCandidate(candidate, mid);
      },
      send: (bytes) => !done && dc.isOpen() && dc.sendMessageBinary(bytes),
      bufferedAmount: () => (done ? 0 : dc.bufferedAmount()),
      close: () => close('closed by this computer'),
    };
  } catch (error) {
    done = true;
    pc.close();
    throw error;
  }
};
