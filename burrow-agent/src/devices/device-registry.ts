/**
 * Paired phones (DESIGN §3 "Client static", "device psk"; §2 revocation). The ACL itself is the `acl` array of
 * burrow.json (state module); this class is the one place that reads and changes it, plus device-activity.json.
 */
import { decodeBase64url, encodeBase64url } from '@burrow/protocol';
import type { AclEntry } from '../state/burrow-state.js';
import { MAX_ACL_ENTRIES, type openStateStore } from '../state/burrow-state.js';
import type { openDeviceActivityStore } from './device-activity.js';
import { deviceIdFor } from './device-id.js';

export interface DeviceRecord {
  readonly deviceId: string;
  readonly label: string;
  readonly clientPublicKey: Uint8Array;
  readonly psk: Uint8Array;
  readonly deliveryId: string;
  readonly pairedAt: number;
}

export interface DeviceView {
  readonly deviceId: string;
  readonly label: string;
  readonly deliveryId: string;
  readonly pairedAt: number;
  /** null: never connected after pairing. */
  readonly lastSeenAt: number | null;
}

export class DeviceLimitError extends Error {
  override readonly name = 'DeviceLimitError';
}

type StateStore = ReturnType<typeof openStateStore>;
type ActivityStore = ReturnType<typeof openDeviceActivityStore>;

function toRecord(e: AclEntry): DeviceRecord {
  const clientPublicKey = decodeBase64url(e.clientPublicKey);
  return {
    deviceId: deviceIdFor(clientPublicKey),
    label: e.label,
    clientPublicKey,
    psk: decodeBase64url(e.psk),
    deliveryId: e.deliveryId,
    pairedAt: e.pairedAt,
  };
}

export class DeviceRegistry {
  constructor(
    private readonly state: StateStore,
    private readonly activity: ActivityStore,
  ) {}

  list(): DeviceView[] {
    const seen = this.activity.load().devices;
    return this.state.load().acl.map((e) => {
      const r = toRecord(e);
      return {
        deviceId: r.deviceId,
        label: r.label,
        deliveryId: r.deliveryId,
        pairedAt: r.pairedAt,
        lastSeenAt: seen[r.deviceId]?.lastSeenAt ?? null,
      };
    });
  }

  /** Every paired device with its keys, in ACL order (the push sender reads this at send time). */
  records(): DeviceRecord[] {
    return this.state.load().acl.map(toRecord);
  }

  findByPublicKey(clientPublicKey: Uint8Array): DeviceRecord | undefined {
    const key = encodeBase64url(clientPublicKey);
    const entry = this.state.load().acl.find((e) => e.clientPublicKey === key);
    return entry ? toRecord(entry) : undefined;
  }

  get(deviceId: string): DeviceRecord | undefined {
    return this.state
      .load()
      .acl.map(toRecord)
      .find((r) => r.deviceId === deviceId);
  }

  /** The anti-replay floor for this device: 0 when it never completed a connect. */
  lastHandshakeAt(deviceId: string): number {
    return this.activity.load().devices[deviceId]?.lastHandshakeAt ?? 0;
  }

  /** Persists the timestamp of a completed connect handshake (and the time it happened). */
  recordHandshake(deviceId: string, timestampMs: number, nowMs: number): void {
    const doc = this.activity.load();
    this.activity.save({
      ...doc,
      devices: { ...doc.devices, [deviceId]: { lastHandshakeAt: timestampMs, lastSeenAt: nowMs } },
    });
  }

  /** Adds (or, for a phone that pairs again with the same key, replaces) a device. */
  add(device: Omit<DeviceRecord, 'deviceId'>): DeviceRecord {
    const doc = this.state.load();
    const key = encodeBase64url(device.clientPublicKey);
    const others = doc.acl.filter((e) => e.clientPublicKey !== key);
    if (others.length >= MAX_ACL_ENTRIES)
      throw new DeviceLimitError(`at most ${MAX_ACL_ENTRIES} paired devices; revoke one first`);
    const entry: AclEntry = {
      clientPublicKey: key,
      label: device.label,
      psk: encodeBase64url(device.psk),
      deliveryId: device.deliveryId,
      pairedAt: device.pairedAt,
    };
    this.state.save({ ...doc, acl: [...others, entry] });
    return toRecord(entry);
  }

  /** Removes a device from the ACL; returns what was removed (undefined: no such device). */
  revoke(deviceId: string): DeviceRecord | undefined {
    const doc = this.state.load();
    const found = doc.acl.find((e) => toRecord(e).deviceId === deviceId);
    if (!found) return undefined;
    this.state.save({ ...doc, acl: doc.acl.filter((e) => e !== found) });
    const act = this.activity.load();
    if (act.devices[deviceId]) {
      const { [deviceId]: _gone, ...rest } = act.devices;
      this.activity.save({ ...act, devices: rest });
    }
    return toRecord(found);
  }
}
