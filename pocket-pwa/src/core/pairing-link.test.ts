import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  encodePairingLink,
  encodePairingPayload,
  isOfferExpired,
  PairingLinkError,
  type PairingOffer,
  parsePairingLink,
} from './pairing-link.js';

const offer: PairingOffer = {
  burrowId: 'AAECAwQFBgcICQoLDA0ODw',
  burrowPublicKey: new Uint8Array(32).fill(7),
  secret: new Uint8Array(32).fill(9),
  expiresAt: 1_800_000_000_000,
  relayUrl: 'https://relay.example.net',
};

describe('pairing link', () => {
  it('round-trips through the link, taking the relay from the origin', () => {
    const link = encodePairingLink(offer);
    expect(link.startsWith('https://relay.example.net/#pair=')).toBe(true);
    expect(parsePairingLink(link)).toEqual(offer);
  });

  it('keeps the secret out of everything before the fragment', () => {
    const link = encodePairingLink(offer);
    expect(link.slice(0, link.indexOf('#'))).toBe('https://relay.example.net/');
  });

  it('takes an explicit relay URL from the payload when present', () => {
    const other = { ...offer, relayUrl: 'http://127.0.0.1:8787' };
    const link = `https://pocket.example.org/#pair=${encodePairingPayload(other, true)}`;
    expect(parsePairingLink(link).relayUrl).toBe('http://127.0.0.1:8787');
  });

  it('accepts a bare fragment only when it carries the relay URL', () => {
    const withUrl = `pair=${encodePairingPayload(offer, true)}`;
    expect(parsePairingLink(withUrl).relayUrl).toBe(offer.relayUrl);
    expect(() => parsePairingLink(`pair=${encodePairingPayload(offer, false)}`)).toThrow(PairingLinkError);
  });

  it('refuses plain-http non-loopback relays', () => {
    const link = `http://relay.example.net/#pair=${encodePairingPayload(offer, false)}`;
    expect(() => parsePairingLink(link)).toThrow(expect.objectContaining({ reason: 'bad_relay_url' }));
  });

  it('refuses other versions, lengths and encodings with reasons', () => {
    const payload = encodePairingPayload(offer, false);
    const reasonOf = (link: string) => {
      try {
        parsePairingLink(link);
        return 'accepted';
      } catch (e) {
        return (e as PairingLinkError).reason;
      }
    };
    expect(reasonOf('https://relay.example.net/#foo=1')).toBe('no_pair_fragment');
    expect(reasonOf('https://relay.example.net/#pair=***')).toBe('bad_encoding');
    expect(reasonOf(`https://relay.example.net/#pair=C${payload.slice(1)}`)).toBe('bad_version');
    expect(reasonOf(`https://relay.example.net/#pair=${payload.slice(0, 40)}`)).toBe('bad_length');
  });

  it('expires at expiresAt', () => {
    expect(isOfferExpired(offer, offer.expiresAt - 1)).toBe(false);
    expect(isOfferExpired(offer, offer.expiresAt)).toBe(true);
  });

  it('never throws anything but PairingLinkError on random or mutated input', () => {
    const good = encodePairingLink(offer);
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ maxLength: 300 }),
          fc
            .tuple(fc.nat(good.length), fc.string({ maxLength: 4 }))
            .map(([i, s]) => good.slice(0, i) + s + good.slice(i + 1)),
          fc
            .uint8Array({ maxLength: 200 })
            .map((b) => `https://relay.example.net/#pair=${Buffer.from(b).toString('base64url')}`),
        ),
        (text) => {
          try {
            parsePairingLink(text);
          } catch (e) {
            expect(e).toBeInstanceOf(PairingLinkError);
          }
        },
      ),
      { seed: 20261201, numRuns: 500 },
    );
  });
});
