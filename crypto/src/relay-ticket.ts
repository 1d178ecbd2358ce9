/**
 * A paired phone's relay ticket for one epoch (issue 16.5; protocol SPEC-relay RL-TICKET-1). The phone and its
 * Burrow both compute it, so the Burrow can publish its hash at the relay and the phone can present it when it
 * connects, and it lets the phone past the shared per-Burrow connect bucket.
 *
 *   ticket = HMAC-BLAKE2s(psk, "burrow relay ticket v1" ‖ burrowId (16 bytes) ‖ epoch (u64 big-endian))
 *   epoch  = ⌊ms since the Unix epoch / RELAY_TICKET_EPOCH_MS⌋
 *
 * The device psk (32 random bytes, DESIGN §3) is the key. The phone gets it at pairing, so this is the ticket
 * "issued at pairing", and a new one comes every epoch without any message. HMAC is a PRF: the relay, which
 * sees tickets, learns nothing about the psk, and cannot link one epoch's ticket to another's or one phone's
 * to another's. The label keeps this use of the psk apart from its use as the Noise psk, where it is input to
 * MixKeyAndHash and never an HMAC key over chosen data.
 *
 * A phone that is pairing has no psk yet, but it holds the pairing link's secret (32 random bytes the Burrow
 * made for this `burrow pair` only). Its pairing ticket (issue 24.5; SPEC-relay RL-TICKET-5) is the same
 * construction under that secret, with its own label and no epoch (an offer lives at most an hour):
 *
 *   pairing ticket = HMAC-BLAKE2s(pairing secret, "burrow pairing ticket v1" ‖ burrowId (16 bytes))
 *
 * The link's secret is also the pairing handshake's psk; the label keeps this use apart, as above.
 */
import { hmacHash } from './blake2s-hkdf.js';
import { assertBytes } from './bytes.js';

export const RELAY_TICKET_BYTES = 32;
/** One epoch (ms): a new ticket every hour. The relay holds the previous, current and next epoch's. */
export const RELAY_TICKET_EPOCH_MS = 3_600_000;
export const RELAY_TICKET_LABEL = 'burrow relay ticket v1';
export const PAIRING_TICKET_LABEL = 'burrow pairing ticket v1';

const LABEL_BYTES = new TextEncoder().encode(RELAY_TICKET_LABEL);
const PAIRING_LABEL_BYTES = new TextEncoder().encode(PAIRING_TICKET_LABEL);
const PAIRING_SECRET_BYTES = 32;
const PSK_BYTES = 32;
const BURROW_ID_BYTES = 16;

/** The epoch `nowMs` falls in. */
export function relayTicketEpoch(nowMs: number): number {
  if (typeof nowMs !== 'number' || !Number.isFinite(nowMs) || nowMs < 0)
    throw new RangeError('nowMs must be a finite, non-negative number');
  return Math.floor(nowMs / RELAY_TICKET_EPOCH_MS);
}

/** The ticket of the device with `psk`, at the Burrow `burrowId` (16 bytes), for `epoch`. */
export function relayTicket(psk: Uint8Array, burrowId: Uint8Array, epoch: number): Uint8Array {
  assertBytes('psk', psk, PSK_BYTES);
  assertBytes('burrowId', burrowId, BURROW_ID_BYTES);
  if (!Number.isSafeInteger(epoch) || epoch < 0)
    throw new RangeError('epoch must be a non-negative safe integer');
  const data = new Uint8Array(LABEL_BYTES.length + BURROW_ID_BYTES + 8);
  data.set(LABEL_BYTES);
  data.set(burrowId, LABEL_BYTES.length);
  new DataView(data.buffer).setBigUint64(LABEL_BYTES.length + BURROW_ID_BYTES, BigInt(epoch), false);
  return hmacHash(psk, data);
}

/** The pairing ticket of the pairing link with `secret` (32 bytes), at the Burrow `burrowId` (16 bytes). */
export function pairingTicket(secret: Uint8Array, burrowId: Uint8Array): Uint8Array {
  assertBytes('secret', secret, PAIRING_SECRET_BYTES);
  assertBytes('burrowId', burrowId, BURROW_ID_BYTES);
  const data = new Uint8Array(PAIRING_LABEL_BYTES.length + BURROW_ID_BYTES);
  data.set(PAIRING_LABEL_BYTES);
  data.set(burrowId, PAIRING_LABEL_BYTES.length);
  return hmacHash(secret, data);
}
