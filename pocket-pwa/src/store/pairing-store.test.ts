import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_PAIRINGS, type PairingRecord } from '../core/pairing-storage.js';
import { checkPairingRecord, StoredPairingError } from './check-pairing-record.js';
import { IdbPairingStorage } from './pairing-store.js';

const b64 = (bytes: number, c: string) => c.repeat(Math.ceil((bytes * 4) / 3));

function record(over: Partial<PairingRecord> = {}): PairingRecord {
  return {
    burrowId: b64(16, 'A'),
    burrowName: 'studio',
    relayUrl: 'https://relay.example',
    burrowPublicKey: b64(32, 'b'),
    clientPrivateKey: b64(32, 'c'),
    clientPublicKey: b64(32, 'd'),
    psk: b64(32, 'e'),
    deviceId: 'dev1',
    deliveryId: b64(16, 'f'),
    deliveryToken: b64(32, 'g'),
    pairedAt: 1000,
    lastHandshakeAt: 0,
    ...over,
  };
}

let dbCount = 0;
let store: IdbPairingStorage | null = null;
async function fresh(): Promise<IdbPairingStorage> {
  store = await IdbPairingStorage.open(`test-${++dbCount}`);
  return store;
}
afterEach(() => store?.close());

describe('IdbPairingStorage', () => {
  it('keeps several Burrows, oldest first, and reads them back intact', async () => {
    const s = await fresh();
    await s.put(record({ burrowId: b64(16, 'Z'), pairedAt: 2000 }));
    await s.put(record());
    const all = await s.list();
    expect(all.map((r) => r.burrowId)).toEqual([b64(16, 'A'), b64(16, 'Z')]);
    expect(await s.get(b64(16, 'A'))).toEqual(record());
    expect(await s.get(b64(16, 'Q'))).toBeUndefined();
  });

  it('re-pairing replaces the old record', async () => {
    const s = await fresh();
    await s.put(record());
    await s.put(record({ psk: b64(32, 'p') }));
    const all = await s.list();
    expect(all).toHaveLength(1);
    expect(all[0]!.psk).toBe(b64(32, 'p'));
  });

  it('renames locally; a blank name goes back to the Burrow name; delete forgets both', async () => {
    const s = await fresh();
    await s.put(record());
    await s.rename(b64(16, 'A'), '  home box ');
    expect(await s.localNames()).toEqual(new Map([[b64(16, 'A'), 'home box']]));
    await s.rename(b64(16, 'A'), '   ');
    expect((await s.localNames()).size).toBe(0);
    await s.rename(b64(16, 'A'), 'again');
    await s.delete(b64(16, 'A'));
    expect(await s.list()).toEqual([]);
    expect((await s.localNames()).size).toBe(0);
    await expect(s.rename(b64(16, 'A'), 'x')).rejects.toBeInstanceOf(StoredPairingError);
    await expect(s.rename(b64(16, 'A'), 'x'.repeat(65))).rejects.toBeInstanceOf(RangeError);
  });

  it(`refuses a new pairing beyond ${MAX_PAIRINGS}, still replaces an existing one`, async () => {
    const s = await fresh();
    for (let i = 0; i < MAX_PAIRINGS; i++) {
      await s.put(record({ burrowId: `${String(i).padStart(2, '0')}${'A'.repeat(20)}` }));
    }
    await expect(s.put(record({ burrowId: b64(16, 'z') }))).rejects.toBeInstanceOf(RangeError);
    await s.put(record({ burrowId: `00${'A'.repeat(20)}`, burrowName: 'again' }));
    expect(await s.list()).toHaveLength(MAX_PAIRINGS);
  });

  it('fails closed on a corrupted stored record', async () => {
    const s = await fresh();
    await expect(s.put(record({ psk: 'short' }))).rejects.toBeInstanceOf(StoredPairingError);
  });
});

describe('checkPairingRecord', () => {
  it('rejects short keys, bad ids and relay URLs that are not an http(s) origin', () => {
    expect(() => checkPairingRecord(record({ burrowId: 'short' }))).toThrow(StoredPairingError);
    expect(() => checkPairingRecord(record({ relayUrl: 'javascript:alert(1)' }))).toThrow(StoredPairingError);
    expect(() => checkPairingRecord(record({ relayUrl: 'http://relay.example' }))).toThrow(
      StoredPairingError,
    );
    expect(() => checkPairingRecord(record({ pairedAt: -1 }))).toThrow(StoredPairingError);
    expect(() => checkPairingRecord(null)).toThrow(StoredPairingError);
    expect(checkPairingRecord({ ...record(), extra: 1 })).toEqual(record());
  });

  it('never throws anything but StoredPairingError on mutated records', () => {
    const base = record() as unknown as Record<string, unknown>;
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(base)), fc.anything(), (k, value) => {
        try {
          checkPairingRecord({ ...base, [k]: value });
        } catch (e) {
          expect(e).toBeInstanceOf(StoredPairingError);
        }
      }),
      { seed: 5, numRuns: 400 },
    );
  });
});
