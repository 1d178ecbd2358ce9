/**
 * Two PathCarriers joined by an in-memory relay and direct channel whose deliveries the test schedules, and a
 * cipher that behaves as Noise's transport does for ordering: the nonce is the message's position, so a
 * message decrypted out of turn fails (the protocol package does not depend on crypto; the Burrow's and the
 * phone's own tests run the carrier over real Noise).
 */
import {
  type CarrierClock,
  type MessageCipher,
  PathCarrier,
  type PathCarrierPolicy,
  SecureChannel,
} from '../src/remote/index.js';

/** Length-preserving "encryption" with a positional nonce and a 16-byte tag, like ChaChaPoly in Noise. */
export class PositionalCipher implements MessageCipher {
  #sendN = 0;
  #recvN = 0;
  encrypt(plaintext: Uint8Array): Uint8Array {
    const out = new Uint8Array(plaintext.length + 16);
    out.set(plaintext);
    new DataView(out.buffer).setFloat64(plaintext.length, this.#sendN++);
    return out;
  }
  decrypt(ciphertext: Uint8Array): Uint8Array {
    if (ciphertext.length < 16) throw new Error('short message');
    const n = new DataView(ciphertext.buffer, ciphertext.byteOffset).getFloat64(ciphertext.length - 16);
    if (n !== this.#recvN) throw new Error(`decryption failed (nonce ${this.#recvN}, message ${n})`);
    this.#recvN++;
    return ciphertext.slice(0, -16);
  }
}

export class FakeClock implements CarrierClock {
  #now = 0;
  #timers = new Map<number, { at: number; fn: () => void }>();
  #next = 1;
  now(): number {
    return this.#now;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#timers.set(id, { at: this.#now + ms, fn });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      const due = [...this.#timers.entries()]
        .filter(([, t]) => t.at <= end)
        .sort((a, b) => a[1].at - b[1].at)[0];
      if (due === undefined) break;
      this.#timers.delete(due[0]);
      this.#now = Math.max(this.#now, due[1].at);
      due[1].fn();
    }
    this.#now = end;
  }
}

/** A one-way pipe whose frames wait until the test delivers them (or drops them). */
export class Pipe {
  readonly queue: Uint8Array[] = [];
  up = true;
  send = (bytes: Uint8Array): boolean => {
    if (!this.up) return false;
    this.queue.push(bytes.slice());
    return true;
  };
}

export interface Side {
  readonly carrier: PathCarrier;
  readonly received: Uint8Array[];
  readonly left: string[];
  readonly ended: string[];
  readonly toRelay: Pipe;
  readonly toDirect: Pipe;
}

export function side(clock: FakeClock, policy?: PathCarrierPolicy): Side {
  const toRelay = new Pipe();
  const toDirect = new Pipe();
  const left: string[] = [];
  const ended: string[] = [];
  const carrier = new PathCarrier(
    new SecureChannel(new PositionalCipher()),
    { sendRelay: toRelay.send, sendDirect: toDirect.send },
    { directLeft: (r) => left.push(r), noPath: (r) => ended.push(r) },
    clock,
    policy,
  );
  return { carrier, received: [], left, ended, toRelay, toDirect };
}

/** A frame the test can recognize: CONTROL kind byte, then the counter as text. */
export function frame(i: number): Uint8Array {
  return new Uint8Array([0x01, ...new TextEncoder().encode(`{"n":${i}}`)]);
}
export function frameNumber(f: Uint8Array): number {
  return (JSON.parse(new TextDecoder().decode(f.subarray(1))) as { n: number }).n;
}

/** Delivers up to `count` queued frames of `from`'s `path` to `to` (all by default). */
export function deliver(from: Side, to: Side, path: 'relay' | 'direct', count = Number.POSITIVE_INFINITY) {
  const pipe = path === 'relay' ? from.toRelay : from.toDirect;
  for (let i = 0; i < count && pipe.queue.length > 0; i++) {
    const bytes = pipe.queue.shift()!;
    const frames = path === 'relay' ? to.carrier.relayFrame(bytes) : to.carrier.directFrame(bytes);
    to.received.push(...frames);
  }
}

/** Both directions of both paths, until nothing is queued. */
export function settle(a: Side, b: Side) {
  while (
    a.toRelay.queue.length +
    a.toDirect.queue.length +
    b.toRelay.queue.length +
    b.toDirect.queue.length
  ) {
    deliver(a, b, 'relay');
    deliver(a, b, 'direct');
    deliver(b, a, 'relay');
    deliver(b, a, 'direct');
  }
}

/** Opens a direct channel on both sides (both see it open). */
export function openDirect(a: Side, b: Side) {
  for (const s of [a, b]) {
    s.toDirect.up = true;
    s.carrier.directAttached();
  }
  a.carrier.directOpened();
  b.carrier.directOpened();
}

/** The channel dies: queued frames on it are lost, both sides are told. */
export function killDirect(a: Side, b: Side, reason = 'closed') {
  for (const s of [a, b]) {
    s.toDirect.up = false;
    s.toDirect.queue.length = 0;
  }
  a.carrier.directClosed(reason);
  b.carrier.directClosed(reason);
}
