// @vitest-environment node
/**
 * The Client static as a non-extractable WebCrypto key (issue 16 item 7), on Node's WebCrypto — the same
 * Secure Curves API the browsers implement (the e2e run it in Chromium, Firefox and WebKit) — and the
 * @noble fallback for engines without X25519 there.
 */
import {
  burrowPrologue,
  dh,
  generateKeyPair,
  NoiseError,
  publicKeyFromPrivate,
  randomBytes,
  responderIKpsk2,
} from '@burrow/crypto';
import {
  type BurrowMessage,
  CloseCode,
  decodeBase64url,
  decodeClientMessage,
  encodeBase64url,
  encodeBurrowMessage,
  Fragmenter,
  PROTOCOL_VERSION,
  Reassembler,
} from '@burrow/protocol';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BurrowConnection } from './burrow-connection.js';
import {
  clientStaticKey,
  generateClientKey,
  isWebCryptoKey,
  MAX_PREPARED_DH,
  rawClientPrivateKey,
  type WebCryptoPrivateKey,
  WebCryptoStaticKey,
} from './client-static.js';
import { MemoryPairingStorage, type PairingRecord } from './pairing-storage.js';
import { startHandshake } from './secure-channel.js';
import type { SocketCloseEvent, SocketLike, SocketMessageEvent } from './socket.js';

const BURROW_ID = 'AAECAwQFBgcICQoLDA0ODw';
const prologue = (mode: 'connect' | 'pair') =>
  burrowPrologue({ mode, protocolVersion: PROTOCOL_VERSION, burrowId: decodeBase64url(BURROW_ID) });

afterEach(() => vi.restoreAllMocks());

describe('generateClientKey', () => {
  it('where WebCrypto has X25519 the private key is a CryptoKey no script can read', async () => {
    const key = await generateClientKey({ webCrypto: true });
    expect(isWebCryptoKey(key.stored)).toBe(true);
    expect(key.stored).toMatchObject({ type: 'private', extractable: false, usages: ['deriveBits'] });
    const subtle = crypto.subtle as unknown as { exportKey(f: string, k: unknown): Promise<unknown> };
    for (const format of ['pkcs8', 'jwk', 'raw'])
      await expect(subtle.exportKey(format, key.stored)).rejects.toThrow();
    expect(key.publicKey).toHaveLength(32);
    expect(() => rawClientPrivateKey({ clientPrivateKey: key.stored })).toThrow(TypeError);
  });

  it('an engine without X25519 in WebCrypto gets the @noble key instead', async () => {
    // What WebKit without Secure Curves does: generateKey rejects with NotSupportedError.
    vi.spyOn(crypto.subtle, 'generateKey').mockRejectedValue(new DOMException('X25519', 'NotSupportedError'));
    const key = await generateClientKey({ webCrypto: true });
    expect(typeof key.stored).toBe('string');
    const raw = rawClientPrivateKey({ clientPrivateKey: key.stored });
    expect(raw).toHaveLength(32);
    expect(key.publicKey).toEqual(publicKeyFromPrivate(raw));
  });

  it('Node test clients ask for the raw key', async () => {
    expect(typeof (await generateClientKey({ webCrypto: false })).stored).toBe('string');
  });
});

describe('WebCryptoStaticKey', () => {
  it('gives the DH results @noble computes for the same private key', async () => {
    const pair = generateKeyPair();
    // The same private key as noble's, imported non-extractable (X25519 private keys import as JWK, not raw).
    const subtle = crypto.subtle as unknown as {
      importKey(f: 'jwk', k: object, a: object, e: boolean, u: string[]): Promise<WebCryptoPrivateKey>;
    };
    const jwk = {
      kty: 'OKP',
      crv: 'X25519',
      d: encodeBase64url(pair.privateKey),
      x: encodeBase64url(pair.publicKey),
    };
    const imported = await subtle.importKey('jwk', jwk, { name: 'X25519' }, false, ['deriveBits']);
    expect(imported).toMatchObject({ extractable: false, type: 'private' });
    const key = new WebCryptoStaticKey(imported, pair.publicKey);
    const peer = generateKeyPair().publicKey;
    expect(() => key.dh(peer)).toThrow(NoiseError); // not prepared yet
    await key.prepare(peer);
    expect(key.dh(peer)).toEqual(dh(pair.privateKey, peer));
  });

  it('a low-order peer key fails the DH; preparing is bounded', async () => {
    const { stored, publicKey } = await generateClientKey({ webCrypto: true });
    const key = clientStaticKey(stored, encodeBase64url(publicKey)) as WebCryptoStaticKey;
    const zero = new Uint8Array(32);
    await key.prepare(zero);
    expect(() => key.dh(zero)).toThrow(expect.objectContaining({ code: 'invalid-public-key' }));
    for (let i = 1; i < MAX_PREPARED_DH; i++) await key.prepare(generateKeyPair().publicKey);
    await expect(key.prepare(generateKeyPair().publicKey)).rejects.toThrow(RangeError);
    expect(() => new WebCryptoStaticKey({} as never, publicKey)).toThrow(TypeError);
  });
});

class Socket implements SocketLike {
  binaryType = 'blob';
  readyState = 0;
  sent: Uint8Array[] = [];
  closedWith: number | null = null;
  onopen: ((e: unknown) => void) | null = null;
  onmessage: ((e: SocketMessageEvent) => void) | null = null;
  onclose: ((e: SocketCloseEvent) => void) | null = null;
  onerror: ((e: unknown) => void) | null = null;
  send(d: Uint8Array | string) {
    this.sent.push(d as Uint8Array);
  }
  close(code?: number) {
    this.readyState = 3;
    this.closedWith = code ?? 1000;
  }
}

const until = async (ok: () => boolean) => {
  for (let i = 0; i < 200 && !ok(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(ok()).toBe(true);
};

describe('BurrowConnection with a WebCrypto Client static', () => {
  async function start() {
    const burrow = generateKeyPair();
    const client = await generateClientKey({ webCrypto: true });
    expect(isWebCryptoKey(client.stored)).toBe(true);
    const psk = randomBytes(32);
    const pairing: PairingRecord = {
      burrowId: BURROW_ID,
      burrowName: 'home',
      relayUrl: 'https://relay.example',
      burrowPublicKey: encodeBase64url(burrow.publicKey),
      clientPrivateKey: client.stored,
      clientPublicKey: encodeBase64url(client.publicKey),
      psk: encodeBase64url(psk),
      deviceId: 'dev1',
      deliveryId: 'AAAAAAAAAAAAAAAAAAAAAA',
      deliveryToken: encodeBase64url(randomBytes(32)),
      pairedAt: 0,
      lastHandshakeAt: 0,
    };
    const sockets: Socket[] = [];
    const conn = new BurrowConnection({
      pairing,
      socketFactory: () => {
        const s = new Socket();
        sockets.push(s);
        return s;
      },
      storage: new MemoryPairingStorage(),
      viewer: 'pocket',
      appVersion: 't',
      cols: 80,
      rows: 24,
    });
    conn.start();
    await until(() => sockets.length === 1);
    const socket = sockets[0]!;
    socket.readyState = 1;
    socket.onopen?.({});
    const responder = responderIKpsk2({ prologue: prologue('connect'), staticKeyPair: burrow, psk });
    responder.readMessage(socket.sent[0]!);
    // The Burrow learned the phone's static from message 1: the one WebCrypto generated.
    expect(responder.remoteStatic).toEqual(client.publicKey);
    const message2 = responder.writeMessage(new Uint8Array(0));
    return { conn, socket, transport: () => responder.split(), message2 };
  }

  it('connects: DH in WebCrypto before message 1 and before reading message 2, then speaks API v1', async () => {
    const { conn, socket, transport, message2 } = await start();
    const burrowEnd = transport();
    socket.onmessage?.({ data: message2 });
    await until(() => socket.sent.length === 2);
    const hello = decodeClientMessage(new Reassembler().push(burrowEnd.decrypt(socket.sent[1]!))!);
    expect(hello).toMatchObject({ type: 'hello', viewer: 'pocket' });
    const events: string[] = [];
    conn.subscribe((e) => events.push(e.type));
    const send = (m: BurrowMessage) => {
      for (const part of new Fragmenter().split(encodeBurrowMessage(m)))
        socket.onmessage?.({ data: burrowEnd.encrypt(part) });
    };
    send({
      type: 'hello',
      burrowName: 'home',
      protocolVersion: PROTOCOL_VERSION,
      agentVersion: 't',
      capabilities: [],
    });
    send({ type: 'pocket-build', files: null });
    expect(conn.status.kind).toBe('connected');
    expect(events).toContain('pocket-build');
    conn.stop();
  });

  it('anything arriving while message 2 is being finished is not from the Burrow: the connection fails', async () => {
    const { conn, socket, message2 } = await start();
    socket.onmessage?.({ data: message2 });
    socket.onmessage?.({ data: new Uint8Array(40) });
    expect(socket.closedWith).toBe(CloseCode.PROTOCOL_VIOLATION);
    conn.stop();
  });

  it('a message 2 for another key fails the handshake', async () => {
    const { conn, socket, message2 } = await start();
    const forged = Uint8Array.from(message2);
    forged[40]! ^= 1;
    socket.onmessage?.({ data: forged });
    await until(() => socket.closedWith !== null);
    expect(socket.closedWith).toBe(CloseCode.DECRYPT_FAILED);
    conn.stop();
  });
});

describe('pairing and push with a WebCrypto key', () => {
  it('startHandshake refuses to run on an unprepared WebCrypto key (nothing is computed from guesses)', async () => {
    const { stored, publicKey } = await generateClientKey({ webCrypto: true });
    const key = clientStaticKey(stored, encodeBase64url(publicKey));
    expect(() =>
      startHandshake({
        mode: 'pair',
        burrowId: BURROW_ID,
        burrowPublicKey: generateKeyPair().publicKey,
        clientPrivateKey: key,
        psk: randomBytes(32),
      }),
    ).toThrow(NoiseError);
  });
});
