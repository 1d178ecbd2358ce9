import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PairingRecord } from '../core/index.js';
import type { PairFunction } from '../pairing/PairingScreen.js';
import { IdbPairingStorage } from '../store/pairing-store.js';
import { MemoryConnection, ringingEntry, sessionEntry } from '../test-support/memory-connection.js';
import { App } from './App.js';
import { BurrowHub } from './burrow-hub.js';

const b64 = (bytes: number, c: string) => c.repeat(Math.ceil((bytes * 4) / 3));
const record = (id: string, name: string, pairedAt: number): PairingRecord => ({
  burrowId: b64(16, id),
  burrowName: name,
  relayUrl: 'https://relay.example',
  burrowPublicKey: b64(32, 'b'),
  clientPrivateKey: b64(32, 'c'),
  clientPublicKey: b64(32, 'd'),
  psk: b64(32, 'e'),
  deviceId: 'dev1',
  deliveryId: b64(16, 'f'),
  deliveryToken: b64(32, 'g'),
  pairedAt,
  lastHandshakeAt: 0,
});

const NOW = 10 * 60_000;
const never: PairFunction = () => new Promise(() => undefined);
let n = 0;
let storage: IdbPairingStorage;
let conns: Map<string, MemoryConnection>;
let hub: BurrowHub;

beforeEach(async () => {
  window.history.replaceState(null, '', '/');
  storage = await IdbPairingStorage.open(`app-${++n}`);
  conns = new Map();
  hub = new BurrowHub(storage, (r) => {
    const c = new MemoryConnection();
    conns.set(r.burrowId, c);
    return c;
  });
});
afterEach(() => {
  hub.stop();
  storage.close();
});

async function renderWith(records: PairingRecord[]) {
  for (const r of records) await storage.put(r);
  await hub.load();
  render(<App hub={hub} pair={never} now={() => NOW} />);
}

describe('App: session list', () => {
  it('shows an empty state that says how to pair', async () => {
    await renderWith([]);
    expect(screen.getByText(/No computer is paired yet/)).toBeTruthy();
  });

  it('lists ringing sessions first with words, not colour only, and previews as plain text', async () => {
    await renderWith([record('A', 'studio', 1)]);
    const conn = conns.get(b64(16, 'A'))!;
    act(() =>
      conn.setSessions([
        sessionEntry({ id: 'calm', lastActivityAt: NOW - 1000 }),
        ringingEntry('loud', NOW - 5000, {
          notification: { source: 'osc9', title: '<img src=x onerror=alert(1)>', body: 'needs permission' },
        }),
      ]),
    );
    const rows = screen.getAllByRole('button', { name: /^Open / });
    expect(rows[0]!.getAttribute('aria-label')).toBe('Open loud, ringing, needs you');
    expect(within(rows[0]!).getByText('Needs you')).toBeTruthy();
    expect(within(rows[0]!).getByText('<img src=x onerror=alert(1)> — needs permission')).toBeTruthy();
    expect(document.querySelector('img')).toBeNull();
    expect(screen.getByText('connected')).toBeTruthy();
  });

  it('a tap acknowledges without input and opens the terminal route', async () => {
    await renderWith([record('A', 'studio', 1)]);
    const conn = conns.get(b64(16, 'A'))!;
    act(() => conn.setSessions([ringingEntry('s1', NOW)]));
    fireEvent.click(screen.getByRole('button', { name: /^Open s1/ }));
    expect(conn.calls).toContainEqual(['acknowledge', 's1', false]);
    expect(window.location.pathname).toBe(`/b/${b64(16, 'A')}/s/s1`);
  });

  it('shows connection state per Burrow, and a removed phone', async () => {
    await renderWith([record('A', 'studio', 1), record('B', 'laptop', 2)]);
    act(() =>
      conns
        .get(b64(16, 'A'))!
        .setStatus({ kind: 'reconnecting', atMs: NOW + 4000, reason: 'your computer is offline' }, 'x'),
    );
    act(() => conns.get(b64(16, 'B'))!.emit({ type: 'revoked' }));
    expect(
      within(screen.getByRole('region', { name: 'studio' })).getByText(/reconnecting in 4 s/),
    ).toBeTruthy();
    expect(
      within(screen.getByRole('region', { name: 'laptop' })).getByText('this phone was removed'),
    ).toBeTruthy();
  });

  it('kills only after confirmation', async () => {
    await renderWith([record('A', 'studio', 1)]);
    const conn = conns.get(b64(16, 'A'))!;
    act(() => conn.setSessions([sessionEntry({ id: 'job' })]));
    fireEvent.click(screen.getByRole('button', { name: 'More actions for job' }));
    fireEvent.click(screen.getByRole('button', { name: 'Kill…' }));
    expect(conn.calls.some((c) => c[0] === 'kill')).toBe(false);
    const dialog = screen.getByRole('alertdialog', { name: 'Kill job?' });
    fireEvent.click(within(dialog).getByRole('button', { name: 'Kill' }));
    expect(conn.calls).toContainEqual(['kill', 'job']);
  });

  it('restarts an exited session with its command in its directory', async () => {
    await renderWith([record('A', 'studio', 1)]);
    const conn = conns.get(b64(16, 'A'))!;
    act(() =>
      conn.setSessions([
        sessionEntry({ id: 'agent', exited: true, exitCode: 1, command: 'claude', cwd: '/src' }),
      ]),
    );
    expect(screen.getByText('exited (1)')).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'More actions for agent' }));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Restart' })));
    const create = conn.calls.find((c) => c[0] === 'create')![1] as {
      argv: string[];
      cwd: string;
      name: string;
    };
    expect(create.argv).toEqual(['/bin/sh', '-lc', 'claude']);
    expect(create.cwd).toBe('/src');
  });

  it('renames and removes a Burrow; removing asks it to forget this phone', async () => {
    await renderWith([record('A', 'studio', 1)]);
    const conn = conns.get(b64(16, 'A'))!;
    fireEvent.click(screen.getByRole('button', { name: 'Settings for studio' }));
    fireEvent.click(screen.getByRole('button', { name: 'Rename' }));
    fireEvent.change(screen.getByRole('textbox', { name: 'Name on this phone' }), {
      target: { value: 'home' },
    });
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Save' })));
    expect(await screen.findByRole('heading', { name: 'home' })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Settings for home' }));
    fireEvent.click(screen.getByRole('button', { name: 'Remove…' }));
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Remove' })));
    expect(conn.calls).toContainEqual(['forgetMe']);
    expect(conn.calls).toContainEqual(['stop']);
    expect(await storage.list()).toEqual([]);
    expect(await screen.findByText(/No computer is paired yet/)).toBeTruthy();
  });

  it('reports presence and the focused session to connected Burrows', async () => {
    await renderWith([record('A', 'studio', 1)]);
    const conn = conns.get(b64(16, 'A'))!;
    expect(conn.calls.some((c) => c[0] === 'presence')).toBe(true);
    expect(conn.calls).toContainEqual(['focus', null]);
  });
});
