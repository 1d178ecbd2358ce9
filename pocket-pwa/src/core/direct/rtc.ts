/**
 * The subset of WebRTC the phone's direct path uses (W3C webrtc-pc), so the browser's `RTCPeerConnection` and
 * node-datachannel's polyfill (the Node test client, the bench) both fit, and the core keeps no DOM types.
 */

export interface RtcIceServer {
  readonly urls: string;
  readonly username?: string;
  readonly credential?: string;
}

export interface RtcDescription {
  readonly type: string;
  readonly sdp?: string | undefined;
}

export interface RtcIceCandidateEvent {
  readonly candidate: { readonly candidate: string; readonly sdpMid: string | null } | null;
}

export interface RtcDataChannelLike {
  binaryType: string;
  readonly readyState: string;
  readonly bufferedAmount: number;
  send(data: Uint8Array): void;
  close(): void;
  onopen: ((event: unknown) => void) | null;
  onclose: ((event: unknown) => void) | null;
  onerror: ((event: unknown) => void) | null;
  onmessage: ((event: { readonly data: unknown }) => void) | null;
}

export interface RtcPeerConnectionLike {
  readonly connectionState: string;
  readonly localDescription: RtcDescription | null;
  createDataChannel(label: string, init: { negotiated: boolean; id: number }): RtcDataChannelLike;
  createOffer(): Promise<RtcDescription>;
  setLocalDescription(description?: RtcDescription): Promise<void>;
  setRemoteDescription(description: RtcDescription): Promise<void>;
  addIceCandidate(candidate: { candidate: string; sdpMid: string }): Promise<void>;
  close(): void;
  onicecandidate: ((event: RtcIceCandidateEvent) => void) | null;
  onconnectionstatechange: ((event: unknown) => void) | null;
}

/** Makes one peer connection (in the browser: `(c) => new RTCPeerConnection(c)`). */
export type RtcFactory = (config: { iceServers: RtcIceServer[] }) => RtcPeerConnectionLike;

type RtcConstructor = new (config: { iceServers: RtcIceServer[] }) => unknown;

/**
 * The engine's own WebRTC, or null where it has none (WebKitGTK is built without it: Pocket then says the
 * direct path is not available in this browser and stays on the relay).
 */
export function engineRtc(): RtcFactory | null {
  const Ctor = (globalThis as { RTCPeerConnection?: RtcConstructor }).RTCPeerConnection;
  if (typeof Ctor !== 'function') return null;
  return (config) => new Ctor(config) as RtcPeerConnectionLike;
}
