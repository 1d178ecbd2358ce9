import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPair } from '@burrow/crypto';
import { CloseCode, decodeAgentToRelayFrame } from '@burrow/protocol';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDeviceActivityStore } from '../devices/device-activity.js';
import { DeviceRegistry } from '../devices/device-registry.js';
import { PairingOffers } from '../pairing/pairing-offer.js';
import { SessionRegistry } from '../session/session-registry.js';
import { openStateStore } from '../state/burrow-state.js';
import type { AttentionPort } from './attention-port.js';
import { HANDSHAKE_BUDGET_MS, MAX_PENDING_HANDSHAKES, RemoteEndpoint } from './remote-endpoint.js';

function endpoint() {
  const dir = mkdtempSync(join(tmpdir(), 'burrow-endpoint-'));
  const closes: [number, number][] = [];
  const logs: string[] = [];
  const ep = new RemoteEndpoint({
    burrowId: 'AAECAwQFBgcICQoLDA0ODw',
    burrowName: 'home',
    relayUrl: 'https://relay.example',
    staticKeyPair: generateKeyPair(),
    devices: new DeviceRegistry(openStateStore(dir), openDeviceActivityStore(dir)),
    offers: new PairingOffers(Date.now),
    registry: new SessionRegistry({ now: Date.now, env: {}, defaultShell: '/bin/sh', log: () => {} }),
    attention: {} as AttentionPort,
    deliveries: { register: async () => {}, revoke: async () => {} },
    revokeDevice: async () => {},
    approver: () => null,
    sendFrame: (bytes) => {
      const f = decodeAgentToRelayFrame(bytes);
      if (f.type === 'close_client') closes.push([f.connId, f.code]);
      return true;
    },
    linkBacklog: () => 0,
    now: Date.now,
    log: (line) => logs.push(line),
  });
  return { ep, closes, logs };
}

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe('RemoteEndpoint', () => {
  it('closes a handshake that does not finish within the budget', () => {
    const { ep, closes } = endpoint();
    ep.onFrame({ type: 'client_open', connId: 1 });
    vi.advanceTimersByTime(HANDSHAKE_BUDGET_MS - 1);
    expect(closes).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(closes).toEqual([[1, CloseCode.HANDSHAKE_TIMEOUT]]);
  });

  it('caps handshakes in flight', () => {
    const { ep, closes } = endpoint();
    for (let i = 1; i <= MAX_PENDING_HANDSHAKES; i++) ep.onFrame({ type: 'client_open', connId: i });
    expect(closes).toEqual([]);
    ep.onFrame({ type: 'client_open', connId: 999 });
    expect(closes).toEqual([[999, CloseCode.HANDSHAKE_TIMEOUT]]);
    // A phone that left frees its slot.
    ep.onFrame({ type: 'client_closed', connId: 1, code: 1000 });
    ep.onFrame({ type: 'client_open', connId: 1000 });
    expect(closes).toHaveLength(1);
  });

  it('refuses data for an unknown connection and a message 1 that fits no mode', () => {
    const { ep, closes } = endpoint();
    ep.onFrame({ type: 'data', connId: 5, payload: new Uint8Array(96) });
    ep.onFrame({ type: 'client_open', connId: 6 });
    ep.onFrame({ type: 'data', connId: 6, payload: new Uint8Array(96) });
    expect(closes).toEqual([
      [5, CloseCode.PROTOCOL_VIOLATION],
      [6, CloseCode.PAIRING_UNAVAILABLE],
    ]);
  });

  it('forgets every connection when the link goes down', () => {
    const { ep, closes } = endpoint();
    ep.onFrame({ type: 'client_open', connId: 1 });
    ep.onLinkDown();
    vi.advanceTimersByTime(HANDSHAKE_BUDGET_MS * 2);
    expect(closes).toEqual([]);
  });

  it('logs a phone closing because what it received failed to open (a tampering path), not a normal close', () => {
    const { ep, logs } = endpoint();
    for (const id of [1, 2, 3]) ep.onFrame({ type: 'client_open', connId: id });
    ep.onFrame({ type: 'client_closed', connId: 1, code: CloseCode.NORMAL });
    ep.onFrame({ type: 'client_closed', connId: 2, code: CloseCode.DECRYPT_FAILED });
    ep.onFrame({ type: 'client_closed', connId: 3, code: CloseCode.PROTOCOL_VIOLATION });
    expect(logs).toEqual([
      'remote: connection 2 was closed by the phone: a message failed to decrypt',
      'remote: connection 3 was closed by the phone: protocol violation',
    ]);
  });
});
