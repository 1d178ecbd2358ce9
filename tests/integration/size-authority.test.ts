/**
 * Issue 22 item 9 through real parts: a REAL `burrow daemon` (built CLI) enrolled with a real relay under
 * `wrangler dev`, a phone (Pocket's client core) reaching the relay through a proxy that can cut its network,
 * and `burrow attach` running in a tmux pane — tmux is the independent reference terminal: `capture-pane`
 * says what a person at the desk sees. The session runs a program that fills its whole screen with a grid it
 * can name cell by cell, redrawn at every size.
 *
 * protocol/SPEC.md R-SIZE-1 (last attach wins), R-SIZE-2 (take back: the phone's fit, the desk's prefix + f),
 * R-SIZE-4 (hand-over when the desk leaves), R-SIZE-5 (a dropped holder phone keeps the size, "reconnecting"),
 * R-SIZE-6 (the phone off the network for 4 s does not take the size back from the desk), R-SIZE-8 (the desk's
 * view of a larger session is clipped, never garbled, with a hint; a smaller one is drawn at its size).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BurrowConnection, SizeAuthorityInfo, TerminalHandle } from '@burrow/pocket/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { type OutageProxy, startOutageProxy } from '../e2e/outage-proxy.js';
import { BURROW_BIN, BurrowDaemon, type PairedPhone, until } from '../helpers/burrow-daemon.js';
import { phoneConnection } from '../helpers/phone-connection.js';
import { stopAll } from '../helpers/stop-all.js';

/** The desk's terminal. */
const DESK = { cols: 100, rows: 30 };
const PHONE = { cols: 48, rows: 20 };
const TABLET = { cols: 120, rows: 40 };

/** Row `y` of the grid program at `cols`×`rows`: its number and the size, then letters to the last column. */
function gridRow(y: number, cols: number, rows: number): string {
  let line = `R${String(y).padStart(2, '0')}:${cols}x${rows}:`;
  while (line.length < cols) line += String.fromCharCode(97 + (line.length % 26));
  return line.slice(0, cols);
}
const GRID_JS = `
const gridRow = ${gridRow.toString()};
const draw = () => {
  const c = process.stdout.columns, r = process.stdout.rows;
  let out = '\\x1b[?1049h\\x1b[H\\x1b[2J';
  for (let y = 0; y < r; y++) out += '\\x1b[' + (y + 1) + ';1H' + gridRow(y, c, r);
  process.stdout.write(out + '\\x1b[H');
};
process.stdout.on('resize', draw);
process.stdin.setRawMode(true);
process.stdin.resume();
draw();
`;

let relay: RelayHandle;
let proxy: OutageProxy;
let daemon: BurrowDaemon;
let paired: PairedPhone;
let phone: BurrowConnection;
const tmuxSocket = `burrow-size-${process.pid}`;
const tmux = (...args: string[]) =>
  spawnSync('tmux', ['-u', '-L', tmuxSocket, '-f', '/dev/null', ...args], {
    encoding: 'utf8',
    env: daemon.env,
    timeout: 10_000,
  });

/** What the desk's pane shows, row by row (tmux capture-pane), right-trimmed. */
const pane = () =>
  tmux('capture-pane', '-p', '-t', 'desk')
    .stdout.split('\n')
    .slice(0, DESK.rows)
    .map((l) => l.trimEnd());

async function paneShows(expected: string[], what: string) {
  let last: string[] = [];
  await until(
    () => {
      last = pane();
      return expected.every((row, i) => last[i] === row);
    },
    what,
    20_000,
  ).catch((e: Error) => {
    throw new Error(`${e.message}\nexpected:\n${expected.join('\n')}\npane:\n${last.join('\n')}`);
  });
}

async function ptySize(): Promise<string> {
  const list = await daemon.json<{ id: string; cols: number; rows: number }[]>('ls', '--json');
  return `${list[0]!.cols}x${list[0]!.rows}`;
}

beforeAll(async () => {
  const probe = spawnSync('tmux', ['-V'], { encoding: 'utf8' });
  if (probe.status !== 0)
    throw new Error('tmux is needed as the reference terminal (apt-get install tmux); it did not run');
  relay = await startRelay();
  daemon = await BurrowDaemon.start();
  await daemon.enroll(relay.url);
  paired = await daemon.pairPhone('phone');
  proxy = await startOutageProxy(relay.port);
}, 180_000);

afterAll(() =>
  stopAll(
    async () => phone?.stop(),
    async () => spawnSync('tmux', ['-L', tmuxSocket, 'kill-server']),
    () => daemon?.stop(),
    () => proxy?.stop(),
    () => relay?.stop(),
  ),
);

describe('size authority across the desk and the phone (R-SIZE-*)', () => {
  it('last attach wins, a 4 s blip takes nothing, take-backs from both, clipped not garbled, hand-over', {
    timeout: 180_000,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'burrow-size-'));
    writeFileSync(join(dir, 'grid.js'), GRID_JS);
    const made = await daemon.cli('new', '--name', 'grid', '--', process.execPath, join(dir, 'grid.js'));
    expect(made.code).toBe(0);
    const id = made.stdout.trim();

    // The phone opens the session: it holds the size (R-SIZE-1).
    phone = phoneConnection(paired, {
      relayUrl: proxy.url,
      backoff: { initialDelayMs: 100, growthFactor: 2, maxDelayMs: 1000, jitter: 0 },
    });
    phone.start();
    await until(() => phone.status.kind === 'connected', 'the phone connected');
    const sizes: (SizeAuthorityInfo & { cols: number; rows: number })[] = [];
    let snapshots = 0;
    const link: TerminalHandle = phone.attach(id, PHONE, {
      onSnapshot: () => snapshots++,
      onOutput: () => {},
      onSizeChanged: (cols, rows, info) => sizes.push({ cols, rows, ...info }),
    });
    await until(() => sizes.at(-1)?.holder === 'you', 'the phone holds the size');
    expect(await ptySize()).toBe('48x20');

    // The desk attaches in a 100×30 tmux pane: it holds now, and sees the grid exactly (bytes through).
    const started = tmux(
      'new-session',
      '-d',
      '-s',
      'desk',
      '-x',
      String(DESK.cols),
      '-y',
      String(DESK.rows),
      `${process.execPath} ${BURROW_BIN} attach grid`,
    );
    expect(started.status, started.stderr).toBe(0);
    const direct = Array.from({ length: DESK.rows }, (_, y) => gridRow(y, DESK.cols, DESK.rows));
    await paneShows(direct, 'the desk shows the grid at its own size');
    await until(() => sizes.at(-1)?.holder === 'local', 'the phone is told the desk holds the size');
    expect(sizes.at(-1)).toMatchObject({ cols: 100, rows: 30, cause: 'attach', holderAway: false });

    // The phone drops off the network for 4 s and comes back (R-SIZE-6): it resumes, the size stays the desk's.
    const before = sizes.length;
    await proxy.cut();
    await new Promise((r) => setTimeout(r, 4_000));
    await proxy.restore();
    await until(() => phone.status.kind === 'connected', 'the phone reconnected', 30_000);
    await until(() => sizes.length > before, 'the size state after the reconnect');
    await new Promise((r) => setTimeout(r, 500));
    expect(sizes.at(-1)).toMatchObject({ cols: 100, rows: 30, holder: 'local' });
    expect(await ptySize()).toBe('100x30');
    await paneShows(direct, 'the desk still shows its grid, untouched');

    // A tablet-sized fit from the phone (R-SIZE-2): the desk's view of the larger session is clipped to its
    // top-left part (the program's cursor is at home), cell for cell the program's grid, with the hint.
    link.fit(TABLET.cols, TABLET.rows);
    await until(() => sizes.at(-1)?.holder === 'you' && sizes.at(-1)?.cols === 120, 'the phone holds 120×40');
    const clipped = Array.from({ length: DESK.rows - 1 }, (_, y) =>
      gridRow(y, TABLET.cols, TABLET.rows).slice(0, DESK.cols),
    );
    await paneShows(
      [...clipped, ' Ctrl-B f: fit here · grid is 120×40, sized by your phone · more →↓'],
      'the desk shows the larger session clipped, with the hint',
    );

    // A phone-sized session on the desk: drawn at its size, the rest dotted.
    link.fit(PHONE.cols, PHONE.rows);
    const dots = (n: number) => '·'.repeat(n);
    const small = [
      ...Array.from({ length: PHONE.rows }, (_, y) => gridRow(y, PHONE.cols, PHONE.rows) + dots(52)),
      ...Array.from({ length: DESK.rows - 1 - PHONE.rows }, () => dots(100)),
      ' Ctrl-B f: fit here · grid is 48×20, sized by your phone',
    ];
    await paneShows(small, 'the desk shows the smaller session at its size');

    // The holder phone drops off (R-SIZE-5): it keeps the size, the desk is told it is reconnecting.
    await proxy.cut();
    await paneShows(
      [...small.slice(0, -1), ' Ctrl-B f: fit here · grid is 48×20, sized by your phone (reconnecting)'],
      'the desk sees the phone away',
    );
    expect(await ptySize()).toBe('48x20');
    await new Promise((r) => setTimeout(r, 2_000));
    await proxy.restore();
    await paneShows(small, 'the phone back, holding as before');
    expect(await ptySize()).toBe('48x20');

    // The desk takes the size back with its key (R-SIZE-2): bytes straight through again.
    tmux('send-keys', '-t', 'desk', 'C-b', 'f');
    await paneShows(direct, 'the desk fits the session again');
    await until(() => sizes.at(-1)?.holder === 'local' && sizes.at(-1)?.cause === 'fit', 'the phone told');

    // The desk detaches (R-SIZE-4): the phone, the one left, holds at its own screen's size.
    tmux('send-keys', '-t', 'desk', 'C-b', 'd');
    await until(() => sizes.at(-1)?.holder === 'you', 'the size handed to the phone');
    expect(sizes.at(-1)).toMatchObject({ cols: 48, rows: 20, cause: 'handover' });
    expect(await ptySize()).toBe('48x20');
    // Everything above happened without a single resync of the phone's screen.
    expect(snapshots).toBe(1);
    link.detach();
  });
});
