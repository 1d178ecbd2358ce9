import type { PushTestOutcome } from '@burrow/protocol';
import { act, fireEvent, render, screen, waitFor } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { PairingRecord } from '../core/pairing-storage.js';
import { IdbPushStore } from '../store/push-store.js';
import { MemoryConnection } from '../test-support/memory-connection.js';
import { PushControls } from './PushControls.js';
import { PushBoard } from './push-board.js';
import {
  type Permission,
  PUSH_PERMISSION_TIMEOUT_MS,
  PUSH_SUBSCRIBE_TIMEOUT_MS,
  type PushEnvironment,
  type SubscriptionLike,
} from './push-registration.js';

const PAIRING: PairingRecord = {
  burrowId: 'burrow-1',
  burrowName: 'desk',
  relayUrl: 'https://relay.example',
  burrowPublicKey: 'k',
  clientPrivateKey: 'k',
  clientPublicKey: 'k',
  psk: 'k',
  deviceId: 'dev',
  deliveryId: 'd1',
  deliveryToken: 't1',
  pairedAt: 1,
  lastHandshakeAt: 0,
};

let n = 0;
let perm: Permission;
let subscription: SubscriptionLike | null;
let env: PushEnvironment;
let requests: string[];

beforeEach(async () => {
  perm = 'granted';
  subscription = null;
  requests = [];
  const key = new Uint8Array(65).fill(4);
  env = {
    store: await IdbPushStore.open(`push-controls-${++n}`),
    clock: () => 1,
    fetch: async (url, init) => {
      requests.push(`${init.method} ${url}`);
      if (url.endsWith('/v1/info')) {
        return Response.json({
          service: 'burrow-relay',
          protocolVersion: 1,
          vapidPublicKey: btoa(String.fromCharCode(...key))
            .replace(/\+/g, '-')
            .replace(/\//g, '_')
            .replace(/=+$/, ''),
          enrollmentGated: false,
          limits: {},
        });
      }
      return new Response(null, { status: 204 });
    },
    push: {
      permission: () => perm,
      requestPermission: async () => perm,
      getSubscription: async () => subscription,
      subscribe: async () => {
        subscription = {
          endpoint: 'https://push.example/1',
          toJSON: () => ({ endpoint: 'https://push.example/1', keys: { p256dh: 'p', auth: 'a' } }),
          unsubscribe: async () => {
            subscription = null;
            return true;
          },
        };
        return subscription;
      },
    },
  };
});

const renderControls = (connection = new MemoryConnection(), connected = true, board = new PushBoard(env)) =>
  render(
    <PushControls
      pairing={PAIRING}
      name="desk"
      board={board}
      connection={connection}
      connected={connected}
    />,
  );

describe('PushControls', () => {
  it('starts off, turns on from the tap, and off again', async () => {
    renderControls();
    await screen.findByText('Notifications: off');
    fireEvent.click(screen.getByRole('button', { name: 'Enable notifications' }));
    await screen.findByText('Notifications: on');
    expect(requests).toContain(`PUT https://relay.example/v1/burrows/burrow-1/deliveries/d1/subscription`);
    fireEvent.click(screen.getByRole('button', { name: 'Turn off notifications' }));
    await screen.findByText('Notifications: off');
    expect(requests).toContain(`DELETE https://relay.example/v1/burrows/burrow-1/deliveries/d1/subscription`);
  });

  it('checks the subscription once per app open, not on every mount', async () => {
    const board = new PushBoard(env);
    const first = renderControls(new MemoryConnection(), true, board);
    fireEvent.click(await screen.findByRole('button', { name: 'Enable notifications' }));
    await screen.findByText('Notifications: on');
    first.unmount();
    subscription = null; // the browser dropped it
    requests = [];
    const again = renderControls(new MemoryConnection(), true, board);
    await screen.findByText('Notifications: on');
    expect(requests).toEqual([]);
    again.unmount();
    renderControls(); // the next app open: a new board
    await screen.findByText('Notifications: on');
    expect(requests).toContain('PUT https://relay.example/v1/burrows/burrow-1/deliveries/d1/subscription');
  });

  it('a failure from an outage is checked again when the Burrow is reachable again (no stale error)', async () => {
    const board = new PushBoard(env);
    const first = renderControls(new MemoryConnection(), true, board);
    fireEvent.click(await screen.findByRole('button', { name: 'Enable notifications' }));
    await screen.findByText('Notifications: on');
    first.unmount();
    // The next open happens offline, with the subscription gone: the re-registration cannot reach the relay.
    subscription = null;
    const online = env.fetch;
    env = { ...env, fetch: async () => Promise.reject(new TypeError('Failed to fetch')) };
    const offlineBoard = new PushBoard(env);
    const view = renderControls(new MemoryConnection(), false, offlineBoard);
    await screen.findByText('Notifications: could not be set up — Failed to fetch');
    // Back: the same board, the connection up again.
    (env as { fetch: PushEnvironment['fetch'] }).fetch = online;
    view.rerender(
      <PushControls
        pairing={PAIRING}
        name="desk"
        board={offlineBoard}
        connection={new MemoryConnection()}
        connected
      />,
    );
    await screen.findByText('Notifications: on');
    expect(screen.queryByText(/Failed to fetch/)).toBeNull();
  });

  it('says "blocked", and a tap reads the permission again instead of a dead button (issue 23)', async () => {
    perm = 'denied';
    renderControls();
    await screen.findByText(/blocked by the browser/);
    const button = screen.getByRole('button', { name: 'Enable notifications' });
    expect(button).toHaveProperty('disabled', false);
    perm = 'granted'; // allowed in the browser's settings meanwhile
    fireEvent.click(button);
    await screen.findByText('Notifications: on');
  });

  it('a refused prompt says blocked at once, and a dismissed one says off with why (issue 23)', async () => {
    perm = 'default';
    env = { ...env, push: { ...env.push!, requestPermission: async () => 'denied' } };
    renderControls(new MemoryConnection(), true, new PushBoard(env));
    fireEvent.click(await screen.findByRole('button', { name: 'Enable notifications' }));
    await screen.findByText(/blocked by the browser/);
    env = { ...env, push: { ...env.push!, requestPermission: async () => 'default' } };
    const other = renderControls(new MemoryConnection(), true, new PushBoard(env));
    await waitFor(() =>
      expect(other.getAllByRole('button', { name: 'Enable notifications' })).toHaveLength(2),
    );
    const second = other.getAllByRole('button', { name: 'Enable notifications' })[1]!;
    await waitFor(() => expect(second).toHaveProperty('disabled', false));
    fireEvent.click(second);
    await screen.findByText('Notifications: off — the browser’s question was dismissed');
  });

  it('names the step it waits on, and a push service that never answers ends failed (issue 23)', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      env = { ...env, push: { ...env.push!, subscribe: () => new Promise(() => {}) } };
      renderControls(new MemoryConnection(), true, new PushBoard(env));
      fireEvent.click(await screen.findByRole('button', { name: 'Enable notifications' }));
      await screen.findByText('Notifications: subscribing with the browser’s push service…');
      expect(screen.getByRole('button', { name: 'Enable notifications' })).toHaveProperty('disabled', true);
      await act(async () => {
        await vi.advanceTimersByTimeAsync(PUSH_SUBSCRIBE_TIMEOUT_MS);
      });
      await screen.findByText(/could not be set up — the browser's push service did not answer within 10 s/);
      expect(screen.getByRole('button', { name: 'Enable notifications' })).toHaveProperty('disabled', false);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a permission prompt nobody answers ends off with that reason (issue 23)', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      perm = 'default';
      env = { ...env, push: { ...env.push!, requestPermission: () => new Promise(() => {}) } };
      renderControls(new MemoryConnection(), true, new PushBoard(env));
      fireEvent.click(await screen.findByRole('button', { name: 'Enable notifications' }));
      await screen.findByText('Notifications: answer the browser’s question to allow them…');
      await act(async () => {
        await vi.advanceTimersByTimeAsync(PUSH_PERMISSION_TIMEOUT_MS);
      });
      await screen.findByText(/off — the browser’s question got no answer/);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a browser that throws when asked ends failed with its error (issue 23)', async () => {
    perm = 'default';
    env = {
      ...env,
      push: {
        ...env.push!,
        requestPermission: async () => {
          throw new DOMException('not allowed here', 'NotAllowedError');
        },
      },
    };
    renderControls(new MemoryConnection(), true, new PushBoard(env));
    fireEvent.click(await screen.findByRole('button', { name: 'Enable notifications' }));
    await screen.findByText(
      'Notifications: could not be set up — the browser refused to ask: not allowed here',
    );
  });

  it('says "not supported" where the browser has no Web Push', async () => {
    renderControls(new MemoryConnection(), true, new PushBoard({ ...env, push: null }));
    await screen.findByText(/not supported in this browser/);
  });

  const outcomes: Array<[PushTestOutcome, number, number, string]> = [
    ['no_devices', 0, 0, 'Test push: this computer has no paired phone to send to.'],
    ['no_subscriptions', 1, 0, 'Test push: no phone has notifications turned on, so nothing was sent.'],
    ['zero_delivered', 2, 0, 'Test push: sent to 2 phones, but none was delivered.'],
    ['partial', 3, 1, 'Test push: delivered to 1 of 3 phones.'],
    ['delivered', 1, 1, 'Test push: delivered.'],
  ];
  for (const [outcome, targets, delivered, text] of outcomes) {
    it(`shows the test push outcome ${outcome}`, async () => {
      const connection = Object.assign(new MemoryConnection(), {
        pushTest: async () => ({ outcome, targets, delivered }),
      });
      renderControls(connection);
      fireEvent.click(await screen.findByRole('button', { name: 'Send test push' }));
      await screen.findByText(text);
    });
  }

  it('shows why a test push failed, and needs the Burrow to be reachable', async () => {
    const connection = Object.assign(new MemoryConnection(), {
      pushTest: () => Promise.reject(new Error('push-test is not supported by this Burrow yet')),
    });
    const board = new PushBoard(env);
    const { rerender } = renderControls(connection, false, board);
    expect(await screen.findByRole('button', { name: 'Send test push' })).toHaveProperty('disabled', true);
    rerender(<PushControls pairing={PAIRING} name="desk" board={board} connection={connection} connected />);
    fireEvent.click(screen.getByRole('button', { name: 'Send test push' }));
    await waitFor(() =>
      expect(
        screen.getByText('Test push failed: push-test is not supported by this Burrow yet'),
      ).toBeTruthy(),
    );
  });
});
