// A push opens with the phone's non-extractable WebCrypto Client static (issue 16 item 7): the worker computes
// Kpsk0's two DHs in WebCrypto before the synchronous open (client-static.ts), and a tampered envelope still
// ends in the generic notification.
import { generateKeyPair, sealPushEnvelope } from '@burrow/crypto';
import { encodeBase64url, encodePushMessage, encodePushNotification } from '@burrow/protocol';
import { describe, expect, it } from 'vitest';
import { generateClientKey, isWebCryptoKey } from '../core/client-static.js';
import type { PairingRecord } from '../core/pairing-storage.js';
import { IdbPushStore } from '../store/push-store.js';
import { GENERIC_TITLE, notificationForPush } from './push-notification.js';

describe('push with a WebCrypto Client static', () => {
  it('opens, names the session, and refuses a tampered envelope', async () => {
    const burrow = generateKeyPair();
    const phone = await generateClientKey({ webCrypto: true });
    expect(isWebCryptoKey(phone.stored)).toBe(true);
    const psk = crypto.getRandomValues(new Uint8Array(32));
    const burrowId = crypto.getRandomValues(new Uint8Array(16));
    const pairing: PairingRecord = {
      burrowId: encodeBase64url(burrowId),
      burrowName: 'desk',
      relayUrl: 'https://relay.example',
      burrowPublicKey: encodeBase64url(burrow.publicKey),
      clientPrivateKey: phone.stored,
      clientPublicKey: encodeBase64url(phone.publicKey),
      psk: encodeBase64url(psk),
      deviceId: 'dev-1',
      deliveryId: 'dlv-1',
      deliveryToken: encodeBase64url(crypto.getRandomValues(new Uint8Array(32))),
      pairedAt: 1,
      lastHandshakeAt: 0,
    };
    const envelope = (seq: number) =>
      sealPushEnvelope({
        burrowId,
        deliveryId: 'dlv-1',
        senderStaticKeyPair: burrow,
        recipientStaticKey: phone.publicKey,
        psk,
        seq,
        payload: encodePushNotification({ v: 1, sessionId: 's1', label: 'deploy', body: 'done', ts: 1 }),
      });
    const seq = await IdbPushStore.open('push-webcrypto-1');
    const deps = { listPairings: async () => [pairing], seq };
    const spec = await notificationForPush(encodePushMessage(envelope(1)), deps);
    expect(spec).toMatchObject({ title: 'deploy', options: { body: 'done', tag: 's1' }, failure: null });
    const tampered = envelope(2);
    tampered[tampered.length - 1]! ^= 1;
    const refused = await notificationForPush(encodePushMessage(tampered), deps);
    expect(refused.title).toBe(GENERIC_TITLE);
    expect(refused.failure).toBe('envelope tampered');
    seq.close();
  });
});
