/**
 * Checks a pairing record read back from IndexedDB (or about to be written) against the core's `PairingRecord`
 * shape: a corrupted or foreign entry fails closed with a `StoredPairingError`, it is never half-used to open a
 * Noise session. Lengths follow DESIGN §3 (ids of 16 bytes, keys and tokens of 32 bytes, base64url).
 */
import { MAX_LABEL_CHARS, MAX_SESSION_ID_CHARS } from '@burrow/protocol';
import { isWebCryptoKey, type StoredClientKey } from '../core/client-static.js';
import { isRelayUrl } from '../core/pairing-link.js';
import type { PairingRecord } from '../core/pairing-storage.js';

export class StoredPairingError extends TypeError {
  override name = 'StoredPairingError';
}

const BASE64URL = /^[A-Za-z0-9_-]+$/;

function text(r: Record<string, unknown>, field: string, max: number): string {
  const v = r[field];
  if (typeof v !== 'string' || v.length < 1 || v.length > max) {
    throw new StoredPairingError(`${field} must be a string of 1..${max} characters`);
  }
  return v;
}
function b64(r: Record<string, unknown>, field: string, bytes: number): string {
  const v = r[field];
  if (typeof v !== 'string' || v.length !== Math.ceil((bytes * 4) / 3) || !BASE64URL.test(v)) {
    throw new StoredPairingError(`${field} must be base64url of ${bytes} bytes`);
  }
  return v;
}
/** The Client static: 32 raw bytes, or a non-extractable X25519 CryptoKey that may only derive bits. */
function clientKey(r: Record<string, unknown>): StoredClientKey {
  if (isWebCryptoKey(r.clientPrivateKey)) return r.clientPrivateKey;
  return b64(r, 'clientPrivateKey', 32);
}
function time(r: Record<string, unknown>, field: string): number {
  const v = r[field];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) {
    throw new StoredPairingError(`${field} must be a non-negative integer`);
  }
  return v;
}

export function checkPairingRecord(value: unknown): PairingRecord {
  if (value === null || typeof value !== 'object')
    throw new StoredPairingError('a pairing record is an object');
  const r = value as Record<string, unknown>;
  const relayUrl = r.relayUrl;
  if (typeof relayUrl !== 'string' || !isRelayUrl(relayUrl)) {
    throw new StoredPairingError('relayUrl must be an https URL (http only on loopback)');
  }
  return {
    burrowId: b64(r, 'burrowId', 16),
    burrowName: text(r, 'burrowName', MAX_LABEL_CHARS),
    relayUrl,
    burrowPublicKey: b64(r, 'burrowPublicKey', 32),
    clientPrivateKey: clientKey(r),
    clientPublicKey: b64(r, 'clientPublicKey', 32),
    psk: b64(r, 'psk', 32),
    deviceId: text(r, 'deviceId', MAX_SESSION_ID_CHARS),
    deliveryId: b64(r, 'deliveryId', 16),
    deliveryToken: b64(r, 'deliveryToken', 32),
    pairedAt: time(r, 'pairedAt'),
    lastHandshakeAt: time(r, 'lastHandshakeAt'),
  };
}
