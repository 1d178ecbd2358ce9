import QRCode from 'qrcode';
import { describe, expect, it } from 'vitest';
import { pairingLink, pairingQr, pairingQrText, QR_QUIET_ZONE_MODULES } from './pairing-link.js';
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

  it('draws the QR with a 4-module quiet zone, every module as QRCode.create made it', () => {
    const link = `http://127.0.0.1:8787/#pair=${'A'.repeat(119)}`;
    const text = pairingQrText(link);
    const rows = text.split('\n').map((l) => [...l.replace(/\x1b\[[0-9;]*m/g, '')]);
    const modules = QRCode.create(link, { errorCorrectionLevel: 'L' }).modules;
    const n = modules.size;
    const q = QR_QUIET_ZONE_MODULES;
    expect(q).toBe(4);
    // Back to modules: each character is a top and a bottom module.
    const dark = (x: number, y: number) => {
      const ch = rows[Math.floor(y / 2)]![x]!;
      return y % 2 === 0 ? ch === '▀' || ch === '█' : ch === '▄' || ch === '█';
    };
    expect(rows.every((r) => r.length === n + 2 * q)).toBe(true);
    expect(rows.length).toBe(Math.ceil((n + 2 * q) / 2));
    for (let y = 0; y < n + 2 * q; y++)
      for (let x = 0; x < n + 2 * q; x++) {
        const inside = x >= q && y >= q && x < n + q && y < n + q;
        expect(dark(x, y), `module ${x},${y}`).toBe(inside && Boolean(modules.get(y - q, x - q)));
      }
    // Dark on light whatever the terminal's colours, reset at the end of every line.
    expect(text.split('\n').every((l) => l.startsWith('\x1b[47m\x1b[30m') && l.endsWith('\x1b[0m'))).toBe(
      true,
    );
  });
});
