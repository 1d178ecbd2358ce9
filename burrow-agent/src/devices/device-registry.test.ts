import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPair, randomBytes } from '@burrow/crypto';
import { describe, expect, it } from 'vitest';
import { openStateStore } from '../state/burrow-state.js';
import { openDeviceActivityStore } from './device-activity.js';
import { deviceIdFor } from './device-id.js';
import { DeviceRegistry } from './device-registry.js';

function registry(dir = mkdtempSync(join(tmpdir(), 'burrow-devices-'))) {
  return { dir, reg: new DeviceRegistry(openStateStore(dir), openDeviceActivityStore(dir)) };
}

describe('DeviceRegistry', () => {
  it('adds, finds, lists, records handshakes durably and revokes', () => {
    const { dir, reg } = registry();
    const key = generateKeyPair().publicKey;
    const d = reg.add({
      label: 'phone',
      clientPublicKey: key,
      psk: randomBytes(32),
      deliveryId: 'AAAAAAAAAAAAAAAAAAAAAA',
      pairedAt: 5,
    });
    expect(d.deviceId).toBe(deviceIdFor(key));
    expect(d.deviceId).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(reg.findByPublicKey(key)?.psk).toEqual(d.psk);
    expect(reg.list()).toEqual([
      {
        deviceId: d.deviceId,
        label: 'phone',
        deliveryId: 'AAAAAAAAAAAAAAAAAAAAAA',
        pairedAt: 5,
        lastSeenAt: null,
      },
    ]);
    expect(reg.lastHandshakeAt(d.deviceId)).toBe(0);
    reg.recordHandshake(d.deviceId, 1234, 99);
    // A fresh registry over the same directory (a daemon restart) keeps the anti-replay floor.
    const again = registry(dir).reg;
    expect(again.lastHandshakeAt(d.deviceId)).toBe(1234);
    expect(again.list()[0]?.lastSeenAt).toBe(99);
    expect(again.revoke(d.deviceId)?.deviceId).toBe(d.deviceId);
    expect(again.findByPublicKey(key)).toBeUndefined();
    expect(again.revoke(d.deviceId)).toBeUndefined();
  });

  it('re-pairing the same key replaces the entry instead of duplicating it', () => {
    const { reg } = registry();
    const key = generateKeyPair().publicKey;
    reg.add({
      label: 'a',
      clientPublicKey: key,
      psk: randomBytes(32),
      deliveryId: 'AAAAAAAAAAAAAAAAAAAAAA',
      pairedAt: 1,
    });
    const psk = randomBytes(32);
    reg.add({ label: 'b', clientPublicKey: key, psk, deliveryId: 'BBBBBBBBBBBBBBBBBBBBBA', pairedAt: 2 });
    expect(reg.list().map((d) => d.label)).toEqual(['b']);
    expect(reg.findByPublicKey(key)?.psk).toEqual(psk);
  });

  it('rejects a key of the wrong length', () => {
    expect(() => deviceIdFor(new Uint8Array(31))).toThrow(TypeError);
  });
});
