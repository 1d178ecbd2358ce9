/**
 * `burrow devices [--json]` and `burrow devices revoke <id>` (DESIGN §2, §6). `port` reaches the daemon's
 * RemoteService (revocation must close live connections, which only the daemon holds).
 */

import type { DeviceView } from '../devices/device-registry.js';
import { printable, printableJson } from '../text/printable.js';

/** A paired device as listed; the push fields come from the relay's delivery list (null: not asked / unknown). */
export type DeviceListing = Omit<DeviceView, 'deliveryId'> & {
  readonly connected: boolean;
  readonly subscribed?: boolean | null;
  readonly subscriptionUpdatedAt?: number | null;
};

export interface DevicesPort {
  listDevices(): readonly DeviceListing[] | Promise<readonly DeviceListing[]>;
  revokeDevice(deviceId: string): Promise<{ revoked: boolean; closed: number; deliveryRevoked: boolean }>;
}

const when = (ms: number | null) =>
  ms === null ? 'never' : new Date(ms).toISOString().replace('T', ' ').slice(0, 16);

function pushColumn(d: DeviceListing): string {
  if (d.subscribed === undefined || d.subscribed === null) return 'unknown';
  if (!d.subscribed) return 'off';
  return d.subscriptionUpdatedAt ? `on (${when(d.subscriptionUpdatedAt)})` : 'on';
}

export async function devicesCommand(
  args: { json: boolean },
  port: DevicesPort,
  print: (s: string) => void,
): Promise<number> {
  const devices = await port.listDevices();
  if (args.json) {
    print(
      printableJson(
        devices.map((d) => ({
          deviceId: d.deviceId,
          label: d.label,
          pairedAt: d.pairedAt,
          lastSeenAt: d.lastSeenAt,
          connected: d.connected,
          subscribed: d.subscribed ?? null,
          subscriptionUpdatedAt: d.subscriptionUpdatedAt ?? null,
        })),
      ),
    );
    return 0;
  }
  if (devices.length === 0) {
    print('No paired devices. Pair one with `burrow pair`.');
    return 0;
  }
  print(`${'ID'.padEnd(18)}${'LABEL'.padEnd(26)}${'PAIRED'.padEnd(18)}${'PUSH'.padEnd(24)}LAST SEEN`);
  for (const d of devices) {
    // The label comes from the phone: shown, never interpreted (printable.ts), cut to the column.
    const label = printable(d.label, 24).slice(0, 24);
    print(
      `${d.deviceId.padEnd(18)}${label.padEnd(26)}${when(d.pairedAt).padEnd(18)}${pushColumn(d).padEnd(24)}${d.connected ? 'connected now' : when(d.lastSeenAt)}`,
    );
  }
  return 0;
}

export async function revokeCommand(
  deviceId: string,
  port: DevicesPort,
  print: (s: string) => void,
): Promise<number> {
  if (!/^[A-Za-z0-9_-]{16}$/.test(deviceId)) {
    print('That is not a device id; see `burrow devices`.');
    return 2;
  }
  const r = await port.revokeDevice(deviceId);
  if (!r.revoked) {
    print(`No device ${deviceId}; see \`burrow devices\`.`);
    return 1;
  }
  print(
    `Revoked ${deviceId}${r.closed > 0 ? `; closed ${r.closed} live connection${r.closed === 1 ? '' : 's'}` : ''}.`,
  );
  if (!r.deliveryRevoked) {
    // It can no longer connect, and the Burrow seals pushes only for devices in its ACL, so none reaches it;
    // the relay merely keeps a stale registration.
    print('Note: the relay could not be reached to drop its push registration (no push will be sent to it).');
    return 1;
  }
  return 0;
}
