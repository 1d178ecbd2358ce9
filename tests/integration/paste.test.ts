/**
 * Issue 24.8: a paste of any size reaches the program whole, in order, within the relay's byte budget, or is
 * refused before any of it is sent. A real relay (`wrangler dev`), a real daemon, the owner's phone as Pocket's
 * core; the session's program reads its terminal raw into a file, which must equal the paste byte for byte.
 *
 * Before: Pocket's core sent a paste as one `input` message, so 6 MiB was refused by its own encoder (over the
 * 1 MiB a frame may carry) and a few MiB in pieces ran through the relay's inbound budget (RL-LIM-7), which
 * closed the phone 4009 partway. Now the core cuts and paces it (R-FLOW-2: 32 KiB frames, a 256 KiB window the
 * Burrow acknowledges as the terminal drains, 512 KiB/s after a 1 MiB burst).
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode, MAX_PASTE_BYTES, PASTE_BURST_BYTES, PASTE_BYTES_PER_SECOND } from '@burrow/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { BurrowDaemon, type PairedPhone, until } from '../helpers/burrow-daemon.js';
import { figure } from '../helpers/fault-fixture.js';
import { recordingSocketFactory } from '../helpers/node-socket.js';
import { phoneConnection } from '../helpers/phone-connection.js';

const PASTE_BYTES = 6 * 1024 * 1024;

let relay: RelayHandle;
let daemon: BurrowDaemon;
let phone: PairedPhone;
let scratch: string;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), 'burrow-paste-'));
  relay = await startRelay();
  daemon = await BurrowDaemon.start();
  const enrolled = await daemon.cli('enroll', '--relay', relay.url);
  expect(enrolled.code, enrolled.stderr).toBe(0);
  phone = await daemon.pairPhone('paste phone');
}, 180_000);

afterAll(async () => {
  await daemon?.stop();
  await relay?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

/** Text as a clipboard holds it: printable lines (raw mode passes every byte, so any would do). */
function clipboard(bytes: number): Buffer {
  const lines = randomBytes(bytes)
    .toString('base64')
    .match(/.{1,100}/g)!
    .join('\n');
  return Buffer.from(lines.slice(0, bytes));
}

describe('a paste from the phone', () => {
  it(`of ${PASTE_BYTES / 1024 / 1024} MiB reaches the program whole and in order, on one connection`, async () => {
    const out = join(scratch, 'pasted');
    const created = await daemon.json<{ id: string }>(
      'new',
      '--json',
      '--',
      '/bin/sh',
      '-c',
      `stty raw -echo; head -c ${PASTE_BYTES} > ${out}; echo pasted-whole`,
    );
    const recording = recordingSocketFactory();
    const conn = phoneConnection(phone, { socketFactory: recording.factory });
    const closes: number[] = [];
    const errors: string[] = [];
    conn.subscribe((e) => {
      if (e.type === 'error') errors.push(`${e.code}: ${e.message}`);
    });
    conn.start();
    try {
      await until(() => conn.status.kind === 'connected', 'the phone to connect', 30_000);
      for (const ws of recording.sockets) ws.on('close', (code: number) => closes.push(code));
      let snapshot = false;
      const term = conn.attach(
        created.id,
        { cols: 80, rows: 24 },
        {
          onSnapshot: () => {
            snapshot = true;
          },
          onOutput: () => {},
        },
      );
      await until(() => snapshot, 'the attach snapshot');
      const data = clipboard(PASTE_BYTES);
      const started = Date.now();
      term.input(data);
      await until(
        () => existsSync(out) && statSync(out).size === PASTE_BYTES,
        'the whole paste in the file',
        120_000,
      );
      const ms = Date.now() - started;
      const same =
        createHash('sha256').update(readFileSync(out)).digest('hex') ===
        createHash('sha256').update(data).digest('hex');
      figure('paste 6 MiB', {
        ms,
        mibPerSecond: (PASTE_BYTES / 1024 / 1024 / (ms / 1000)).toFixed(2),
        identical: same ? 'yes' : 'no',
        sockets: recording.sockets.length,
        closes: closes.join('/') || 'none',
      });
      expect(same).toBe(true);
      expect(recording.sockets).toHaveLength(1);
      expect(closes).toEqual([]);
      expect(errors).toEqual([]);
      // Paced: no faster than the burst plus the rate allow (so the relay's budget was never at stake).
      expect(ms).toBeGreaterThanOrEqual(
        ((PASTE_BYTES - PASTE_BURST_BYTES) / PASTE_BYTES_PER_SECOND) * 1000 - 500,
      );
    } finally {
      conn.stop();
    }
  }, 180_000);

  it('over the limit is refused whole, with words that name the limit, and nothing reaches the program', async () => {
    const created = await daemon.json<{ id: string }>('new', '--json', '--', '/bin/cat');
    const conn = phoneConnection(phone);
    const errors: { code: string; message: string }[] = [];
    conn.subscribe((e) => {
      if (e.type === 'error') errors.push({ code: e.code, message: e.message });
    });
    conn.start();
    try {
      await until(() => conn.status.kind === 'connected', 'the phone to connect', 30_000);
      let output = 0;
      let snapshot = false;
      const term = conn.attach(
        created.id,
        { cols: 80, rows: 24 },
        {
          onSnapshot: () => {
            snapshot = true;
          },
          onOutput: (d) => {
            output += d.length;
          },
        },
      );
      await until(() => snapshot, 'the attach snapshot');
      term.input(Buffer.alloc(MAX_PASTE_BYTES + 1, 0x61));
      expect(errors).toEqual([
        {
          code: ErrorCode.PAYLOAD_TOO_LARGE,
          message: 'Paste not sent: 16,777,217 bytes is more than the 16 MiB a paste may be.',
        },
      ]);
      await new Promise((r) => setTimeout(r, 500));
      expect(output).toBe(0);
    } finally {
      conn.stop();
    }
  }, 60_000);
});
