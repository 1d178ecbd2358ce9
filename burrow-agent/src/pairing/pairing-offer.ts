/**
 * Pairing offers (DESIGN §3 "pairing secret", §4.2 "Pairing"): 32 CSPRNG bytes, an expiry, single use. Pure
 * state with an injected clock. Only ONE offer is open at a time — the pair-mode handshake cannot tell which
 * secret a phone holds until message 2 (psk2), so a new `burrow pair` replaces the previous offer.
 */
import { randomBytes } from '@burrow/crypto';

export const PAIRING_SECRET_BYTES = 32;
/** DESIGN §3: default 10 min. */
export const DEFAULT_PAIRING_TTL_MS = 10 * 60 * 1000;
/** Longest expiry `burrow pair` accepts. */
export const MAX_PAIRING_TTL_MS = 60 * 60 * 1000;

export interface PairingOffer {
  readonly secret: Uint8Array;
  readonly createdAt: number;
  readonly expiresAt: number;
  /** The label the owner gave on `burrow pair --label`, else the phone's own. */
  readonly label: string | null;
}

export class PairingOffers {
  #open: PairingOffer | null = null;

  constructor(private readonly now: () => number) {}

  create(options: { ttlMs?: number; label?: string | null } = {}): PairingOffer {
    const ttl = options.ttlMs ?? DEFAULT_PAIRING_TTL_MS;
    if (!Number.isInteger(ttl) || ttl < 1000 || ttl > MAX_PAIRING_TTL_MS) {
      throw new RangeError(`pairing expiry must be 1 s … ${MAX_PAIRING_TTL_MS / 60000} min`);
    }
    const createdAt = this.now();
    this.#open = {
      secret: randomBytes(PAIRING_SECRET_BYTES),
      createdAt,
      expiresAt: createdAt + ttl,
      label: options.label ?? null,
    };
    return this.#open;
  }

  /** The open offer, if it has not expired (an expired one is dropped here). */
  current(): PairingOffer | null {
    if (this.#open && this.now() >= this.#open.expiresAt) this.#open = null;
    return this.#open;
  }

  /**
   * Burns the offer: called once the phone's first transport message decrypted (the key confirmation). Only
   * the offer that is still open can be burnt; false means it was used, replaced or expired meanwhile.
   */
  burn(offer: PairingOffer): boolean {
    if (this.current() !== offer) return false;
    this.#open = null;
    return true;
  }

  cancel(): void {
    this.#open = null;
  }
}
