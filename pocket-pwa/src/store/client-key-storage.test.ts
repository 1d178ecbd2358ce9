// IndexedDB keeps a non-extractable Client static as the key object itself (issue 16 item 7): it comes back
// usable and still unreadable, and the record check accepts only such a key or 32 raw bytes.
import { encodeBase64url } from '@burrow/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { generateClientKey, isWebCryptoKey } from '../core/client-static.js';
import type { PairingRecord } from '../core/pairing-storage.js';
import { checkPairingRecord, StoredPairingError } from './check-pairing-record.js';
import { IdbPairingStorage } from './pairing-store.js';

const b64 = (bytes: number, c: string) => c.repeat(Math.ceil((bytes * 4) / 3));

async function record(): Promise<PairingRecord> {
  const key = await generateClientKey({ webCrypto: true });
  return {
    burrowId: b64(16, 'A'),
    burrowName: 'studio',
    relayUrl: 'https://relay.example',
    burrowPublicKey: b64(32, 'b'),
    clientPrivateKey: key.stored,
    clientPublicKey: encodeBase64url(key.publicKey),
    psk: b64(32, 'e'),
    deviceId: 'dev1',
    deliveryId: b64(16, 'f'),
    deliveryToken: b64(32, 'g'),
    pairedAt: 1000,
    lastHandshakeAt: 0,
  };
}

let store: IdbPairingStorage | null = null;
afterEach(() => store?.close());

describe('a WebCrypto Client static in IndexedDB', () => {
  it('round-trips as a non-extractable key object, never as bytes', async () => {
    store = await IdbPairingStorage.open('client-key-1');
    const r = await record();
    expect(isWebCryptoKey(r.clientPrivateKey)).toBe(true);
    await store.put(r);
    const back = (await store.get(r.burrowId))!;
    expect(isWebCryptoKey(back.clientPrivateKey)).toBe(true);
    expect(back.clientPrivateKey).toMatchObject({ extractable: false, type: 'private' });
    const subtle = crypto.subtle as unknown as { exportKey(f: string, k: unknown): Promise<unknown> };
    await expect(subtle.exportKey('jwk', back.clientPrivateKey)).rejects.toThrow();
  });

  it('the record check refuses an extractable key, a key for other uses, and anything else', async () => {
    const r = await record();
    const subtle = crypto.subtle as unknown as {
      generateKey(a: unknown, e: boolean, u: string[]): Promise<{ privateKey: unknown }>;
    };
    const extractable = (await subtle.generateKey({ name: 'X25519' }, true, ['deriveBits'])).privateKey;
    const ecdh = (await subtle.generateKey({ name: 'ECDH', namedCurve: 'P-256' }, false, ['deriveBits']))
      .privateKey;
    for (const bad of [extractable, ecdh, { type: 'private', extractable: false }, 42, 'short']) {
      expect(() => checkPairingRecord({ ...r, clientPrivateKey: bad })).toThrow(StoredPairingError);
    }
    expect(checkPairingRecord(r).clientPrivateKey).toBe(r.clientPrivateKey);
  });
});
