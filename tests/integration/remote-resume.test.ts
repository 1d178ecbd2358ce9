/**
 * Two phones on one session (resize authority, shared output), a reconnect in the middle of a numbered stream
 * that resumes without loss or duplication, and a capture of every byte the relay handled containing none of
 * the plaintext markers typed, printed or used as a session name. Real relay (wrangler dev) behind a
 * recording TCP proxy, real bash, Pocket's client core on Node `ws`.
 */
import {
  MemoryPairingStorage,
  type PairingRecord,
  pairWithOffer,
  parsePairingLink,
  type TerminalHandle,
} from '@burrow/pocket/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { recordingSocketFactory } from '../helpers/node-socket.js';
import { phoneConnection } from '../helpers/phone-connection.js';
import { type RecordingProxy, startRecordingProxy } from '../helpers/recording-proxy.js';
import { startRemoteBurrow } from '../helpers/remote-burrow.js';
import { until as untilWithin } from '../helpers/until.js';

const TYPED_MARKER = 'TYPEDmarkerQ7Z';
const PRINTED_MARKER = 'PRINTEDmarkerK4W';
const NAME_MARKER = 'NAMEmarkerX9V';
const LINES = 2000;

let relay: RelayHandle;
let proxy: RecordingProxy;
let burrow: Awaited<ReturnType<typeof startRemoteBurrow>>;

const until = (cond: () => boolean, what: string, ms = 30_000) => untilWithin(cond, what, ms);

async function pairPhone(label: string, storage: MemoryPairingStorage): Promise<PairingRecord> {
  return pairWithOffer({
    offer: parsePairingLink(await burrow.newPairingLink()),
    socketFactory: recordingSocketFactory().factory,
    storage,
    label,
    platform: 'node',
    userAgent: 'vitest',
    onCode: () => {},
  });
}

function viewer(pairing: PairingRecord, storage: MemoryPairingStorage) {
  const sockets = recordingSocketFactory();
  const conn = phoneConnection(
    { pairing, storage },
    {
      socketFactory: sockets.factory,
      backoff: { initialDelayMs: 100, growthFactor: 2, maxDelayMs: 1000, jitter: 0 },
    },
  );
  return { conn, sockets };
}

beforeAll(async () => {
  relay = await startRelay();
  proxy = await startRecordingProxy(relay.port);
  burrow = await startRemoteBurrow(proxy.url);
  await until(() => burrow.service.linkStatus.kind === 'connected', 'the relay link');
});

afterAll(async () => {
  await burrow?.stop();
  await proxy?.stop();
  await relay?.stop();
});

describe('two viewers, resume, and what the relay saw', () => {
  it('works end to end and the relay never sees plaintext', async () => {
    const storageA = new MemoryPairingStorage();
    const storageB = new MemoryPairingStorage();
    const a = viewer(await pairPhone('phone A', storageA), storageA);
    const b = viewer(await pairPhone('phone B', storageB), storageB);
    const session = burrow.registry.create({
      name: NAME_MARKER,
      cwd: burrow.stateDir,
      command: ['/bin/bash', '--norc', '--noprofile'],
      cols: 80,
      rows: 24,
    });
    a.conn.start();
    b.conn.start();
    try {
      await until(
        () => a.conn.sessions.has(session.id) && b.conn.sessions.has(session.id),
        'both directories',
      );
      expect(a.conn.sessions.get(session.id)?.name).toBe(NAME_MARKER);

      let outA = '';
      let outB = '';
      let snapsA = 0;
      let sizeSeenByA = '';
      const termA: TerminalHandle = a.conn.attach(
        session.id,
        { cols: 90, rows: 20 },
        {
          onSnapshot: () => {
            snapsA++;
          },
          onOutput: (d) => {
            outA += new TextDecoder().decode(d);
          },
          onSizeChanged: (c, r) => {
            sizeSeenByA = `${c}x${r}`;
          },
        },
      );
      await until(() => snapsA === 1, 'A attached');
      await until(() => session.info().cols === 90, 'A size');
      b.conn.attach(
        session.id,
        { cols: 70, rows: 30 },
        { onSnapshot: () => {}, onOutput: (d) => (outB += new TextDecoder().decode(d)) },
      );
      // Last attach wins; the first viewer hears about it.
      await until(() => session.info().cols === 70 && sizeSeenByA === '70x30', 'B takes the size');
      termA.fit(100, 25);
      await until(() => session.info().cols === 100 && session.info().rows === 25, 'A fits back');

      // Markers are split in the command so their echo is not the marker itself; only the program prints it.
      termA.input(
        `X=${TYPED_MARKER.slice(0, 5)}; echo "\${X}${TYPED_MARKER.slice(5)}"; echo ${PRINTED_MARKER.slice(0, 7)}"${PRINTED_MARKER.slice(7)}"\r`,
      );
      await until(
        () => outA.includes(PRINTED_MARKER) && outB.includes(PRINTED_MARKER),
        'output on both viewers',
      );

      // A numbered stream; A's socket is cut in the middle and it must resume from its offset.
      outA = '';
      termA.input(
        `for i in $(seq 1 ${LINES}); do echo n$i; if [ $i = 300 ]; then sleep 0.5; fi; done; echo DONE""MARK\r`,
      );
      await until(() => /\bn250\r?\n/.test(outA), 'the stream to start');
      a.sockets.sockets.at(-1)!.terminate();
      await until(() => a.conn.status.kind === 'reconnecting', 'A notices the drop');
      await until(() => outA.includes('DONEMARK'), 'the stream to finish after the resume', 60_000);
      expect(a.sockets.sockets.length).toBeGreaterThanOrEqual(2);
      expect(snapsA).toBe(1); // resumed from its offset, not resynced
      const numbers = [...outA.matchAll(/^n(\d+)\r?$/gm)].map((m) => Number(m[1]));
      expect(numbers).toEqual(Array.from({ length: LINES }, (_, i) => i + 1));
    } finally {
      a.conn.stop();
      b.conn.stop();
    }
    const seen = Buffer.concat([proxy.toRelay(), proxy.fromRelay()]);
    expect(seen.length).toBeGreaterThan(10_000);
    // The capture does see what is not encrypted (the HTTP upgrade lines), so a plaintext leak would show.
    expect(seen.includes(Buffer.from(`/v1/burrows/${burrow.enrollment.burrowId}/client`))).toBe(true);
    for (const marker of [TYPED_MARKER, PRINTED_MARKER, NAME_MARKER, 'DONEMARK', 'n1999']) {
      expect(seen.includes(Buffer.from(marker)), marker).toBe(false);
    }
  });
});
