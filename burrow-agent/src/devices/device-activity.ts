/**
 * Per device, what changes on every connect: the last handshake timestamp accepted (the anti-replay floor of
 * DESIGN §4.2 — it must survive restarts, or a recorded message 1 could be replayed after one) and when it
 * was last seen. Kept beside the ACL (burrow.json, owned by the state module) in `device-activity.json`, so
 * a connect never rewrites the file that holds the psks.
 */
import { join } from 'node:path';
import * as v from 'valibot';
import { MAX_ACL_ENTRIES } from '../state/burrow-state.js';
import { JsonFileStore } from '../state/json-store.js';

export const DEVICE_ACTIVITY_FILE_NAME = 'device-activity.json';
export const DEVICE_ACTIVITY_VERSION = 1;

const ms = v.pipe(v.number(), v.integer(), v.minValue(0));
const DeviceActivitySchema = v.strictObject({
  version: v.literal(DEVICE_ACTIVITY_VERSION),
  devices: v.pipe(
    v.record(
      v.pipe(v.string(), v.regex(/^[A-Za-z0-9_-]{16}$/)),
      v.strictObject({ lastHandshakeAt: ms, lastSeenAt: ms }),
    ),
    v.check((r) => Object.keys(r).length <= MAX_ACL_ENTRIES, `at most ${MAX_ACL_ENTRIES} devices`),
  ),
});
export type DeviceActivity = v.InferOutput<typeof DeviceActivitySchema>;

export function openDeviceActivityStore(stateDir: string): JsonFileStore<typeof DeviceActivitySchema> {
  return new JsonFileStore(join(stateDir, DEVICE_ACTIVITY_FILE_NAME), DeviceActivitySchema, () => ({
    version: DEVICE_ACTIVITY_VERSION,
    devices: {},
  }));
}
