/**
 * An in-process Burrow remote side for integration tests: real state files in a temp BURROW_STATE_DIR, real
 * bash sessions, the real relay link and remote endpoint. (The daemon process wiring is the lead's; this uses
 * the same modules the daemon will.)
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { keyPairFromPrivate } from '@burrow/crypto';
import { decodeBase64url } from '@burrow/protocol';
import { openDeviceActivityStore } from '../../burrow-agent/src/devices/device-activity.js';
import { DeviceRegistry } from '../../burrow-agent/src/devices/device-registry.js';
import { pairingLink } from '../../burrow-agent/src/pairing/pairing-link.js';
import { PairingOffers } from '../../burrow-agent/src/pairing/pairing-offer.js';
import { RelayLink } from '../../burrow-agent/src/relay-link/relay-link.js';
import type { AttentionPort, PublicAttentionState } from '../../burrow-agent/src/remote/attention-port.js';
import { type PairApprover, RemoteEndpoint } from '../../burrow-agent/src/remote/remote-endpoint.js';
import { enrollCommand } from '../../burrow-agent/src/remote-cli/enroll-command.js';
import { HttpDeliveryRegistrar } from '../../burrow-agent/src/remote-cli/relay-http.js';
import { SessionRegistry } from '../../burrow-agent/src/session/session-registry.js';
import { openStateStore } from '../../burrow-agent/src/state/burrow-state.js';

const IDLE: PublicAttentionState = {
  status: 'NOTHING_TO_SHOW',
  ringing: false,
  ringingSince: null,
  episodeId: null,
  todo: false,
  notification: null,
  awaited: false,
};

/** Records every verb the remote API routes to the engine, so tests can check the routing. */
export class RecordingAttention implements AttentionPort {
  readonly calls: string[] = [];
  publicState(): PublicAttentionState {
    return IDLE;
  }
  acknowledge(s: string, _v: string, withInput: boolean): void {
    this.calls.push(`ack ${s} ${withInput}`);
  }
  todo(s: string, a: string): void {
    this.calls.push(`todo ${s} ${a}`);
  }
  dismiss(s: string): void {
    this.calls.push(`dismiss ${s}`);
  }
  presence(_v: string, r: { state: string }): void {
    this.calls.push(`presence ${r.state}`);
  }
  focus(_v: string, s: string | null): void {
    this.calls.push(`focus ${s}`);
  }
  viewerGone(): void {}
  onChange(): () => void {
    return () => {};
  }
}

export async function startRemoteBurrow(relayUrl: string) {
  const stateDir = mkdtempSync(join(tmpdir(), 'burrow-state-'));
  const store = openStateStore(stateDir);
  await enrollCommand({ relayUrl, secret: null }, store);
  const state = store.load();
  const enrollment = state.enrollment!;
  const staticKeyPair = keyPairFromPrivate(decodeBase64url(state.staticKey!.privateKey));
  const devices = new DeviceRegistry(store, openDeviceActivityStore(stateDir));
  const offers = new PairingOffers(Date.now);
  const logs: string[] = [];
  const registry = new SessionRegistry({
    now: Date.now,
    env: { ...process.env, PS1: '$ ', HISTFILE: '/dev/null' },
    defaultShell: '/bin/bash',
    log: (_l, m) => logs.push(m),
  });
  const attention = new RecordingAttention();
  let approver: PairApprover | null = async () => true;
  const deliveries = new HttpDeliveryRegistrar(
    enrollment.relayUrl,
    enrollment.burrowId,
    enrollment.burrowToken,
  );
  let link: RelayLink | null = null;
  const endpoint = new RemoteEndpoint({
    burrowId: enrollment.burrowId,
    burrowName: 'test burrow',
    relayUrl: enrollment.relayUrl,
    staticKeyPair,
    devices,
    offers,
    registry,
    attention,
    deliveries,
    approver: () => approver,
    sendFrame: (f) => link?.send(f) ?? false,
    linkBacklog: () => 0,
    now: Date.now,
    log: (m) => logs.push(m),
  });
  link = new RelayLink({
    relayUrl: enrollment.relayUrl,
    burrowId: enrollment.burrowId,
    burrowToken: enrollment.burrowToken,
    onFrame: (f) => endpoint.onFrame(f),
    onDown: () => endpoint.onLinkDown(),
  });
  link.start();
  return {
    stateDir,
    enrollment,
    staticKeyPair,
    devices,
    registry,
    endpoint,
    attention,
    logs,
    link,
    setApprover(a: PairApprover | null) {
      approver = a;
    },
    newPairingLink(): string {
      const offer = offers.create();
      return pairingLink({
        relayUrl: enrollment.relayUrl,
        burrowId: enrollment.burrowId,
        burrowPublicKey: staticKeyPair.publicKey,
        secret: offer.secret,
        expiresAt: offer.expiresAt,
      });
    },
    async revoke(deviceId: string) {
      const removed = devices.revoke(deviceId);
      endpoint.closeDevice(deviceId);
      if (removed) await deliveries.revoke(removed.deliveryId);
    },
    async stop() {
      link?.stop();
      await registry.killAll();
    },
  };
}
