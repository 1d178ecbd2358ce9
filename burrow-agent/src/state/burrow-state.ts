/**
 * The Burrow state file (`burrow.json`): enrollment, this machine's static key and the ACL of paired phones,
 * in one file so that every change is one atomic rename (standalone-host-spec "State"; DESIGN §3 names the
 * fields). Pairing and enrollment are filled by later work; the slots are defined here so the file format is
 * versioned from day one. Settings live beside it in `settings.json`.
 */
import { join } from 'node:path';
import * as v from 'valibot';
import { JsonFileStore } from './json-store.js';

export const STATE_FILE_NAME = 'burrow.json';
export const SETTINGS_FILE_NAME = 'settings.json';
export const STATE_VERSION = 1;
export const SETTINGS_VERSION = 1;

/** Most paired phones one Burrow keeps. */
export const MAX_ACL_ENTRIES = 64;
/** Bound for any free-text field (labels, URLs) in the state file. */
export const MAX_STATE_TEXT = 512;

const B64URL = /^[A-Za-z0-9_-]+$/;
/** base64url of exactly `bytes` bytes (unpadded). */
const b64url = (bytes: number) => v.pipe(v.string(), v.regex(B64URL), v.length(Math.ceil((bytes * 4) / 3)));
const text = v.pipe(v.string(), v.maxLength(MAX_STATE_TEXT));

const EnrollmentSchema = v.strictObject({
  relayUrl: v.pipe(text, v.url()),
  burrowId: b64url(16),
  burrowToken: b64url(32),
  enrolledAt: v.pipe(v.number(), v.integer(), v.minValue(0)),
});

const StaticKeySchema = v.strictObject({ publicKey: b64url(32), privateKey: b64url(32) });

const AclEntrySchema = v.strictObject({
  clientPublicKey: b64url(32),
  label: text,
  psk: b64url(32),
  deliveryId: b64url(16),
  pairedAt: v.pipe(v.number(), v.integer(), v.minValue(0)),
});

export const BurrowStateSchema = v.strictObject({
  version: v.literal(STATE_VERSION),
  enrollment: v.nullable(EnrollmentSchema),
  staticKey: v.nullable(StaticKeySchema),
  acl: v.pipe(v.array(AclEntrySchema), v.maxLength(MAX_ACL_ENTRIES)),
});

export const SettingsSchema = v.strictObject({
  version: v.literal(SETTINGS_VERSION),
  /** Shell for `burrow new` without a command; null means $SHELL, else /bin/sh. */
  defaultShell: v.nullable(v.pipe(text, v.minLength(1))),
  /** Resume every resumable coding-agent session when the daemon starts (src/recovery/); absent = false. */
  resumeAgentsAtStart: v.optional(v.boolean()),
});

export type BurrowState = v.InferOutput<typeof BurrowStateSchema>;
export type Settings = v.InferOutput<typeof SettingsSchema>;
export type Enrollment = v.InferOutput<typeof EnrollmentSchema>;
export type AclEntry = v.InferOutput<typeof AclEntrySchema>;

export const emptyState = (): BurrowState => ({
  version: STATE_VERSION,
  enrollment: null,
  staticKey: null,
  acl: [],
});
export const defaultSettings = (): Settings => ({ version: SETTINGS_VERSION, defaultShell: null });

export function openStateStore(stateDir: string): JsonFileStore<typeof BurrowStateSchema> {
  return new JsonFileStore(join(stateDir, STATE_FILE_NAME), BurrowStateSchema, emptyState);
}

export function openSettingsStore(stateDir: string): JsonFileStore<typeof SettingsSchema> {
  return new JsonFileStore(join(stateDir, SETTINGS_FILE_NAME), SettingsSchema, defaultSettings);
}
