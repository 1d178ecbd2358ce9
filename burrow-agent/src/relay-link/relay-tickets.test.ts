import { createHash } from 'node:crypto';
import { RELAY_TICKET_EPOCH_MS, relayTicket, relayTicketEpoch } from '@burrow/crypto';
import { decodeBase64url, encodeBase64url, MAX_RELAY_TICKET_DEVICES } from '@burrow/protocol';
import { describe, expect, it } from 'vitest';
import {
  pairingTicketHashes,
  RelayTicketPublisher,
  relayTicketHashes,
  TICKET_EPOCH_MARGIN_MS,
  TICKET_RETRY_MS,
} from './relay-tickets.js';

const BURROW_ID = encodeBase64url(new Uint8Array(16).fill(3));
const psk = (n: number) => new Uint8Array(32).fill(n);
const hashOf = (ticket: Uint8Array) => encodeBase64url(createHash('sha256').update(ticket).digest());
/** Half past some hour. */
const T0 = 1_780_000_000_000 - (1_780_000_000_000 % RELAY_TICKET_EPOCH_MS) + RELAY_TICKET_EPOCH_MS / 2;

/** Timers driven by hand: `advance` runs what falls due, in order. */
function fakeTimers(start: number) {
  let now = start;
  let next = 1;
  const due = new Map<number, { at: number; fn: () => void }>();
  return {
    timers: {
      now: () => now,
      setTimeout: (fn: () => void, ms: number) => {
        const id = next++;
        due.set(id, { at: now + ms, fn });
        return id;
      },
      clearTimeout: (h: unknown) => {
        due.delete(h as number);
      },
    },
    pending: () => [...due.values()].map((d) => d.at - now),
    async advance(ms: number) {
      const until = now + ms;
      for (;;) {
        const first = [...due.entries()].sort((a, b) => a[1].at - b[1].at)[0];
        if (first === undefined || first[1].at > until) break;
        due.delete(first[0]);
        now = first[1].at;
        first[1].fn();
        await new Promise((r) => setImmediate(r));
      }
      now = until;
    },
  };
}

describe('relay ticket hashes (issue 16.5, RL-TICKET-2)', () => {
  it('are the SHA-256 of each phone’s tickets for the previous, current and next epoch, sorted', () => {
    const hashes = relayTicketHashes([psk(1), psk(2)], BURROW_ID, T0);
    const e = relayTicketEpoch(T0);
    const expected = [psk(1), psk(2)].flatMap((k) =>
      [e - 1, e, e + 1].map((x) => hashOf(relayTicket(k, decodeBase64url(BURROW_ID), x))),
    );
    expect(hashes).toEqual([...expected].sort());
    expect(relayTicketHashes([], BURROW_ID, T0)).toEqual([]);
    const many = Array.from({ length: MAX_RELAY_TICKET_DEVICES + 1 }, (_, i) => psk(i));
    expect(() => relayTicketHashes(many, BURROW_ID, T0)).toThrow(RangeError);
  });
});

describe('RelayTicketPublisher', () => {
  function setup(fail: () => boolean = () => false) {
    const clock = fakeTimers(T0);
    const published: string[][] = [];
    const pairingPublished: string[][] = [];
    const logs: string[] = [];
    let psks: Uint8Array[] = [psk(1)];
    let secrets: Uint8Array[] = [];
    let release: (() => void) | null = null;
    let hold = false;
    const publisher = new RelayTicketPublisher({
      burrowId: BURROW_ID,
      psks: () => psks,
      pairingSecrets: () => secrets,
      publish: (hashes, pairing) => {
        published.push([...hashes]);
        pairingPublished.push([...pairing]);
        if (hold) return new Promise<void>((r) => (release = r));
        return fail() ? Promise.reject(new Error('relay down')) : Promise.resolve();
      },
      timers: clock.timers,
      log: (l) => logs.push(l),
    });
    return {
      clock,
      published,
      pairingPublished,
      logs,
      publisher,
      setPsks: (p: Uint8Array[]) => (psks = p),
      setSecrets: (p: Uint8Array[]) => (secrets = p),
      holdNext: () => (hold = true),
      releaseHeld: () => {
        hold = false;
        release?.();
      },
    };
  }

  it('publishes at start and again just after each epoch boundary', async () => {
    const { clock, published, publisher } = setup();
    publisher.start();
    await clock.advance(0);
    expect(published).toHaveLength(1);
    expect(clock.pending()).toEqual([RELAY_TICKET_EPOCH_MS / 2 + TICKET_EPOCH_MARGIN_MS]);
    await clock.advance(RELAY_TICKET_EPOCH_MS / 2 + TICKET_EPOCH_MARGIN_MS);
    expect(published).toHaveLength(2);
    // The new set moved one epoch on: two of the three hashes are the same, one is new.
    expect(published[1]!.filter((h) => published[0]!.includes(h))).toHaveLength(2);
    publisher.stop();
    expect(clock.pending()).toEqual([]);
  });

  it('publishes at once when phones change, after an in-flight publish ends', async () => {
    const { clock, published, publisher, setPsks, holdNext, releaseHeld } = setup();
    holdNext();
    publisher.start();
    setPsks([psk(1), psk(2)]);
    publisher.devicesChanged();
    expect(published).toHaveLength(1);
    releaseHeld();
    await clock.advance(0);
    expect(published).toHaveLength(2);
    expect(published[1]).toHaveLength(6);
    // A revocation: the revoked phone's hashes leave the set.
    setPsks([psk(2)]);
    publisher.devicesChanged();
    await clock.advance(0);
    expect(published[2]).toEqual(relayTicketHashes([psk(2)], BURROW_ID, T0));
  });

  it("publishes the open pairing link's ticket hash, and says when a set holding a change is at the relay (24.5)", async () => {
    const { clock, pairingPublished, publisher, setSecrets, holdNext, releaseHeld } = setup();
    publisher.start();
    await clock.advance(0);
    expect(pairingPublished).toEqual([[]]);
    const secret = new Uint8Array(32).fill(5);
    // `burrow pair` opens while a publish is in flight: the answer waits for the publish that holds the link.
    holdNext();
    publisher.devicesChanged();
    setSecrets([secret]);
    let published: boolean | null = null;
    const answer = publisher.changed().then((v) => {
      published = v;
      return v;
    });
    await clock.advance(0);
    expect(published).toBeNull();
    releaseHeld();
    expect(await answer).toBe(true);
    expect(pairingPublished.at(-1)).toEqual(pairingTicketHashes([secret], BURROW_ID));
    expect(pairingTicketHashes([secret], BURROW_ID)[0]).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // The link is used or cancelled: the next set drops it.
    setSecrets([]);
    expect(await publisher.changed()).toBe(true);
    expect(pairingPublished.at(-1)).toEqual([]);
    publisher.stop();
    expect(await publisher.changed()).toBe(false);
  });

  it('retries a failed publish and logs the reason once', async () => {
    let failing = true;
    const { clock, published, publisher, logs } = setup(() => failing);
    publisher.start();
    await clock.advance(0);
    expect(clock.pending()).toEqual([TICKET_RETRY_MS]);
    await clock.advance(TICKET_RETRY_MS);
    expect(published).toHaveLength(2);
    expect(logs).toEqual(['relay tickets: could not publish: relay down']);
    failing = false;
    await clock.advance(TICKET_RETRY_MS);
    expect(published).toHaveLength(3);
    expect(clock.pending()[0]).toBeGreaterThan(TICKET_RETRY_MS);
  });
});
