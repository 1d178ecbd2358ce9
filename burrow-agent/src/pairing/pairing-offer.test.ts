import { describe, expect, it } from 'vitest';
import { pairingLink, pairingQr } from './pairing-link.js';
import { DEFAULT_PAIRING_TTL_MS, PairingOffers } from './pairing-offer.js';

describe('PairingOffers', () => {
  it('makes a 32-byte secret that expires after 10 minutes', () => {
    let now = 1000;
    const offers = new PairingOffers(() => now);
    const o = offers.create();
    expect(o.secret).toHaveLength(32);
    expect(o.expiresAt).toBe(1000 + DEFAULT_PAIRING_TTL_MS);
    now = o.expiresAt - 1;
    expect(offers.current()).toBe(o);
    now = o.expiresAt;
    expect(offers.current()).toBeNull();
    expect(offers.burn(o)).toBe(false);
  });

  it('is single use, and a new offer replaces the old one', () => {
    const offers = new PairingOffers(() => 0);
    const a = offers.create();
    const b = offers.create();
    expect(a.secret).not.toEqual(b.secret);
    expect(offers.burn(a)).toBe(false);
    expect(offers.burn(b)).toBe(true);
    expect(offers.burn(b)).toBe(false);
    expect(offers.current()).toBeNull();
  });

  it('refuses silly expiries', () => {
    const offers = new PairingOffers(() => 0);
    expect(() => offers.create({ ttlMs: 10 })).toThrow(RangeError);
    expect(() => offers.create({ ttlMs: 24 * 3600_000 })).toThrow(RangeError);
  });
});

describe('pairingLink', () => {
  it('puts everything secret after the #', async () => {
    const secret = new Uint8Array(32).fill(0xab);
    const link = pairingLink({
      relayUrl: 'https://relay.example/',
      burrowId: 'AAECAwQFBgcICQoLDA0ODw',
      burrowPublicKey: new Uint8Array(32).fill(1),
      secret,
      expiresAt: 5,
    });
    const [before, fragment] = link.split('#');
    expect(before).toBe('https://relay.example/');
    expect(fragment).toMatch(/^pair=[A-Za-z0-9_-]+$/);
    expect(Buffer.from(fragment!.slice(5), 'base64url').includes(Buffer.from(secret))).toBe(true);
    expect(await pairingQr(link)).toMatch(/[▀▄█]/);
  });
});
