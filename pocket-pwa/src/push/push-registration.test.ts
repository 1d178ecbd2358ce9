import { encodeBase64url } from '@burrow/protocol';
import { beforeEach, describe, expect, it } from 'vitest';
import type { PairingRecord } from '../core/pairing-storage.js';
import { IdbPushStore } from '../store/push-store.js';
import {
  checkPush,
  disablePush,
  enablePush,
  type Permission,
  type PushEnvironment,
  type PushManagerPort,
  type SubscriptionLike,
} from './push-registration.js';

const RELAY = 'https://relay.example';
const vapidKey = () => {
  const k = crypto.getRandomValues(new Uint8Array(65));
  k[0] = 4;
  return k;
};

function pairing(burrowId: string, deliveryId: string): PairingRecord {
  return {
    burrowId,
    burrowName: 'desk',
    relayUrl: `${RELAY}/`,
    burrowPublicKey: 'k',
    clientPrivateKey: 'k',
    clientPublicKey: 'k',
    psk: 'k',
    deviceId: 'dev',
    deliveryId,
    deliveryToken: `token-${deliveryId}`,
    pairedAt: 1,
    lastHandshakeAt: 0,
  };
}

/** A browser push manager: one subscription, like a service worker registration holds. */
class FakePushManager implements PushManagerPort {
  perm: Permission = 'default';
  answerPrompt: Permission = 'granted';
  prompts = 0;
  current: (SubscriptionLike & { key: Uint8Array }) | null = null;
  subscribeCalls: { userVisibleOnly: boolean; key: string }[] = [];
  #n = 0;

  permission(): Permission {
    return this.perm;
  }
  async requestPermission(): Promise<Permission> {
    this.prompts++;
    this.perm = this.answerPrompt;
    return this.perm;
  }
  async getSubscription() {
    return this.current;
  }
  async subscribe(options: { userVisibleOnly: true; applicationServerKey: Uint8Array }) {
    this.subscribeCalls.push({
      userVisibleOnly: options.userVisibleOnly,
      key: encodeBase64url(options.applicationServerKey),
    });
    if (this.current) return this.current;
    this.current = this.issue(options.applicationServerKey);
    return this.current;
  }
  issue(key: Uint8Array) {
    const endpoint = `https://push.example/ep-${++this.#n}`;
    const sub = {
      endpoint,
      key,
      options: { applicationServerKey: key.slice().buffer as ArrayBuffer },
      toJSON: () => ({ endpoint, expirationTime: null, keys: { p256dh: 'p', auth: 'a' } }),
      unsubscribe: async () => {
        if (this.current === sub) this.current = null;
        return true;
      },
    };
    return sub;
  }
}

interface Call {
  method: string;
  url: string;
  auth: string | null;
  body: unknown;
}

let push: FakePushManager;
let calls: Call[];
let vapid: Uint8Array;
let relayAnswer: (call: Call) => Response;
let store: IdbPushStore;
let env: PushEnvironment;
let n = 0;
const A = pairing('burrowA', 'dA');
const B = pairing('burrowB', 'dB');

beforeEach(async () => {
  push = new FakePushManager();
  calls = [];
  vapid = vapidKey();
  relayAnswer = () => new Response(null, { status: 204 });
  store = await IdbPushStore.open(`push-registration-test-${++n}`);
  env = {
    push,
    store,
    clock: () => 1234,
    fetch: async (url, init) => {
      const headers = new Headers(init.headers);
      const call: Call = {
        method: init.method ?? 'GET',
        url,
        auth: headers.get('Authorization'),
        body: typeof init.body === 'string' ? JSON.parse(init.body) : null,
      };
      calls.push(call);
      if (url.endsWith('/v1/info')) {
        return Response.json({
          service: 'burrow-relay',
          protocolVersion: 1,
          vapidPublicKey: vapid.length ? encodeBase64url(vapid) : null,
          enrollmentGated: false,
          limits: {},
        });
      }
      return relayAnswer(call);
    },
  };
});

const subscriptionUrl = (p: PairingRecord) =>
  `${RELAY}/v1/burrows/${p.burrowId}/deliveries/${p.deliveryId}/subscription`;
const relayCalls = () => calls.filter((c) => !c.url.endsWith('/v1/info'));

describe('enablePush (on the owner tap)', () => {
  it('asks permission, subscribes visibly with the relay key, PUTs it with the delivery token', async () => {
    const state = await enablePush(A, env);
    expect(state).toEqual({ kind: 'on', endpoint: 'https://push.example/ep-1' });
    expect(push.prompts).toBe(1);
    expect(push.subscribeCalls).toEqual([{ userVisibleOnly: true, key: encodeBase64url(vapid) }]);
    expect(relayCalls()).toEqual([
      {
        method: 'PUT',
        url: subscriptionUrl(A),
        auth: 'Bearer token-dA',
        body: {
          endpoint: 'https://push.example/ep-1',
          expirationTime: null,
          keys: { p256dh: 'p', auth: 'a' },
        },
      },
    ]);
    expect(await store.getRegistration('burrowA')).toEqual({
      wanted: true,
      endpoint: 'https://push.example/ep-1',
      registeredAt: 1234,
    });
  });

  it('is "blocked" when the owner denies (or denied before), and nothing is sent', async () => {
    push.answerPrompt = 'denied';
    expect(await enablePush(A, env)).toEqual({ kind: 'blocked' });
    expect(await enablePush(A, env)).toEqual({ kind: 'blocked' });
    expect(push.prompts).toBe(1);
    expect(calls).toEqual([]);
  });

  it('stays off when the prompt is dismissed, and says so (issue 23)', async () => {
    push.answerPrompt = 'default';
    expect(await enablePush(A, env)).toEqual({ kind: 'off', reason: 'dismissed' });
    expect(calls).toEqual([]);
  });

  it('reports the relay refusal in its words, and the next open retries', async () => {
    relayAnswer = () =>
      Response.json({ error: { code: 'not_found', message: 'unknown delivery' } }, { status: 404 });
    const failed = await enablePush(A, env);
    expect(failed).toEqual({ kind: 'failed', message: 'the relay refused (404): unknown delivery' });
    expect(await store.getRegistration('burrowA')).toMatchObject({ wanted: true, endpoint: null });
    relayAnswer = () => new Response(null, { status: 204 });
    expect((await checkPush(A, env)).kind).toBe('on');
  });

  it('fails clearly when the relay has no VAPID key', async () => {
    vapid = new Uint8Array(0);
    expect(await enablePush(A, env)).toEqual({
      kind: 'failed',
      message: 'the relay has no push key configured',
    });
    expect(push.subscribeCalls).toEqual([]);
  });

  it('a subscription held under another key is replaced (a push service refuses a foreign VAPID key)', async () => {
    push.perm = 'granted';
    push.current = push.issue(vapidKey());
    const state = await enablePush(A, env);
    expect(state).toEqual({ kind: 'on', endpoint: 'https://push.example/ep-2' });
  });

  it('unsupported browsers say so, whatever is asked', async () => {
    const none = { ...env, push: null };
    expect(await enablePush(A, none)).toEqual({ kind: 'unsupported' });
    expect(await checkPush(A, none)).toEqual({ kind: 'unsupported' });
    expect(await disablePush(A, none)).toEqual({ kind: 'unsupported' });
  });

  it('an iPhone without Web Push says why (a browser tab, or iOS before 16.4), and nothing is asked of it', async () => {
    for (const why of ['install-first', 'too-old'] as const) {
      const ios = { ...env, push: null, unsupported: why };
      expect(await enablePush(A, ios)).toEqual({ kind: 'unsupported', why });
      expect(await checkPush(A, ios)).toEqual({ kind: 'unsupported', why });
    }
    expect(calls).toEqual([]);
  });
});

describe('checkPush (every app open)', () => {
  it('is off and silent for a Burrow push was never turned on for', async () => {
    push.perm = 'granted';
    expect(await checkPush(A, env)).toEqual({ kind: 'off' });
    expect(calls).toEqual([]);
  });

  it('is on without a relay call while the subscription is the one registered', async () => {
    await enablePush(A, env);
    calls = [];
    expect(await checkPush(A, env)).toEqual({ kind: 'on', endpoint: 'https://push.example/ep-1' });
    expect(calls).toEqual([]);
  });

  it('re-registers when the browser dropped the subscription', async () => {
    await enablePush(A, env);
    push.current = null;
    calls = [];
    expect(await checkPush(A, env)).toEqual({ kind: 'on', endpoint: 'https://push.example/ep-2' });
    expect(relayCalls().map((c) => [c.method, c.url])).toEqual([['PUT', subscriptionUrl(A)]]);
  });

  it('re-registers when the subscription changed under it', async () => {
    await enablePush(A, env);
    push.current = push.issue(vapid);
    calls = [];
    expect(await checkPush(A, env)).toEqual({ kind: 'on', endpoint: 'https://push.example/ep-2' });
    expect(relayCalls()[0]?.body).toMatchObject({ endpoint: 'https://push.example/ep-2' });
    expect((await store.getRegistration('burrowA'))?.endpoint).toBe('https://push.example/ep-2');
  });

  it('is blocked once the owner revoked the permission in the browser', async () => {
    await enablePush(A, env);
    push.perm = 'denied';
    expect(await checkPush(A, env)).toEqual({ kind: 'blocked' });
  });
});

describe('disablePush (the per-phone switch)', () => {
  it('DELETEs this delivery; the browser subscription stays while another Burrow wants push', async () => {
    await enablePush(A, env);
    await enablePush(B, env);
    calls = [];
    expect(await disablePush(A, env)).toEqual({ kind: 'off' });
    expect(relayCalls()).toEqual([
      { method: 'DELETE', url: subscriptionUrl(A), auth: 'Bearer token-dA', body: null },
    ]);
    expect(push.current).not.toBeNull();
    expect(await checkPush(A, env)).toEqual({ kind: 'off' });
    expect(await disablePush(B, env)).toEqual({ kind: 'off' });
    expect(push.current).toBeNull();
  });

  it('stays off here when the relay cannot be told, and says so', async () => {
    await enablePush(A, env);
    relayAnswer = () => new Response('oops', { status: 500, statusText: 'Internal Server Error' });
    expect(await disablePush(A, env)).toEqual({
      kind: 'failed',
      message: 'turned off here, but the relay was not told: the relay refused (500): Internal Server Error',
    });
    expect(await checkPush(A, env)).toEqual({ kind: 'off' });
  });
});
