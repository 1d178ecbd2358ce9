import { createECDH } from 'node:crypto';
import { createRequire } from 'node:module';
import { PUSH_ENVELOPE_MAX_BYTES } from '@burrow/crypto';
import {
  decodeBase64url as b64,
  encodeBase64url,
  MAX_PUSH_ENVELOPE_BYTES,
  MAX_PUSH_ENVELOPE_CHARS,
} from '@burrow/protocol';
import { describe, expect, it } from 'vitest';
import { deriveContentKeys, encryptSingleRecord } from './aes128gcm.js';
import { hkdfExpand } from './hmac-sha256.js';
import rfc8188 from './vectors/rfc8188.json' with { type: 'json' };
import rfc8291 from './vectors/rfc8291.json' with { type: 'json' };
import { deriveWebPushIkm, encryptWebPush, WEB_PUSH_MAX_PLAINTEXT_BYTES } from './web-push-encryption.js';

/** http_ece (web-push-libs): an independent aes128gcm implementation, CommonJS without types. */
interface HttpEce {
  decrypt(
    buffer: Buffer,
    params: { version: 'aes128gcm'; privateKey: unknown; dh?: Buffer; authSecret: Buffer },
  ): Buffer;
}
const ece = createRequire(import.meta.url)('http_ece') as HttpEce;

const { inputs, intermediate, output } = rfc8291;

describe('RFC 8188 aes128gcm', () => {
  it('reproduces §3.1 exactly (one record, empty key id)', async () => {
    const ex = rfc8188.examples[0]!;
    const body = await encryptSingleRecord({
      ikm: b64(ex.ikm),
      salt: b64(ex.salt),
      recordSize: ex.rs,
      keyId: new Uint8Array(0),
      plaintext: new TextEncoder().encode(ex.plaintext_utf8),
    });
    expect(encodeBase64url(body)).toBe(ex.body);
  });

  it('derives §3.1 and §3.2 PRK, CEK and NONCE', async () => {
    for (const ex of rfc8188.examples) {
      const keys = await deriveContentKeys(b64(ex.ikm), b64(ex.salt));
      expect(encodeBase64url(keys.prk)).toBe(ex.PRK);
      expect(encodeBase64url(keys.cek)).toBe(ex.CEK);
      expect(encodeBase64url(keys.nonce)).toBe(ex.NONCE);
    }
  });

  it('refuses a plaintext that does not fit one record', async () => {
    const args = {
      ikm: new Uint8Array(16),
      salt: new Uint8Array(16),
      recordSize: 25,
      keyId: new Uint8Array(0),
    };
    await expect(encryptSingleRecord({ ...args, plaintext: new Uint8Array(9) })).rejects.toThrow(RangeError);
    await expect(encryptSingleRecord({ ...args, plaintext: new Uint8Array(8) })).resolves.toHaveLength(
      21 + 25,
    );
  });
});

describe('RFC 8291 Web Push encryption', () => {
  const testOnly = {
    salt: b64(inputs.salt),
    senderPrivateKey: b64(inputs.as_private),
    senderPublicKey: b64(inputs.as_public),
  };
  const recipient = { p256dh: b64(inputs.ua_public), auth: b64(inputs.auth_secret) };

  it('reproduces Appendix A byte for byte', async () => {
    const body = await encryptWebPush(b64(inputs.plaintext), recipient, testOnly);
    expect(encodeBase64url(body.subarray(0, 86))).toBe(output.header);
    expect(encodeBase64url(body)).toBe(output.body);
  });

  it('derives the Appendix A IKM with the counter byte appended once', async () => {
    const ikm = await deriveWebPushIkm(
      b64(intermediate.ecdh_secret),
      recipient.auth,
      recipient.p256dh,
      testOnly.senderPublicKey,
    );
    expect(encodeBase64url(ikm)).toBe(intermediate.IKM);
    // The "double 0x01" bug: info ‖ 0x01 expanded again (another 0x01) gives a different IKM.
    const doubled = await hkdfExpand(
      b64(intermediate.PRK_key),
      new Uint8Array([...b64(intermediate.key_info), 1]),
      32,
    );
    expect(encodeBase64url(doubled)).not.toBe(intermediate.IKM);
  });

  it('random salt and sender key each time; http_ece decrypts it with the UA private key', async () => {
    const ua = createECDH('prime256v1');
    ua.generateKeys();
    const auth = crypto.getRandomValues(new Uint8Array(16));
    const plaintext = crypto.getRandomValues(new Uint8Array(WEB_PUSH_MAX_PLAINTEXT_BYTES));
    const p256dh = new Uint8Array(ua.getPublicKey());
    const a = await encryptWebPush(plaintext, { p256dh, auth });
    const b = await encryptWebPush(plaintext, { p256dh, auth });
    expect(a.length).toBe(4096);
    expect(a.subarray(0, 16)).not.toEqual(b.subarray(0, 16));
    expect(a.subarray(21, 86)).not.toEqual(b.subarray(21, 86));
    const opened = ece.decrypt(Buffer.from(a), {
      version: 'aes128gcm',
      privateKey: ua,
      authSecret: Buffer.from(auth),
    });
    expect(new Uint8Array(opened)).toEqual(plaintext);
  });

  it("fits the largest sealed envelope's base64url text exactly into a 4096-byte push message", () => {
    expect(WEB_PUSH_MAX_PLAINTEXT_BYTES).toBe(3993);
    expect(MAX_PUSH_ENVELOPE_CHARS).toBe(WEB_PUSH_MAX_PLAINTEXT_BYTES);
    expect(PUSH_ENVELOPE_MAX_BYTES).toBe(MAX_PUSH_ENVELOPE_BYTES);
    expect(encodeBase64url(new Uint8Array(MAX_PUSH_ENVELOPE_BYTES)).length).toBeLessThanOrEqual(3993);
    expect(encodeBase64url(new Uint8Array(MAX_PUSH_ENVELOPE_BYTES + 1)).length).toBeGreaterThan(3993);
  });

  it('rejects oversize plaintext, bad keys and bad auth secrets', async () => {
    await expect(encryptWebPush(new Uint8Array(WEB_PUSH_MAX_PLAINTEXT_BYTES + 1), recipient)).rejects.toThrow(
      RangeError,
    );
    await expect(
      encryptWebPush(new Uint8Array(1), { ...recipient, auth: new Uint8Array(15) }),
    ).rejects.toThrow(RangeError);
    const offCurve = new Uint8Array(65);
    offCurve[0] = 4;
    await expect(encryptWebPush(new Uint8Array(1), { ...recipient, p256dh: offCurve })).rejects.toThrow(
      RangeError,
    );
    await expect(encryptWebPush('x' as unknown as Uint8Array, recipient)).rejects.toThrow(TypeError);
  });
});
