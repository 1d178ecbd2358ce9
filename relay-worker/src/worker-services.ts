/** `RelayServices` on Cloudflare Workers: Durable Object namespaces, the assets binding, vars and secrets. */
import { allowsLoopbackPushForDev, type Env, enrollmentPolicy, extraPushServiceHosts } from './env.js';
import { vapidSignerFromConfig } from './push/vapid-config.js';
import type { BurrowApi, RelayServices } from './services.js';

export function workerServices(env: Env): RelayServices {
  return {
    burrow: (burrowId) => env.BURROW.get(env.BURROW.idFromName(burrowId)) as unknown as BurrowApi,
    takeSourceToken: (sourceKey, kind) => env.LIMITER.get(env.LIMITER.idFromName(sourceKey)).take(kind),
    refuseSocket(code, reason, headers) {
      const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
      server.accept();
      server.close(code, reason);
      return new Response(null, { status: 101, webSocket: client, headers });
    },
    fetchAsset: (request) => env.ASSETS.fetch(request),
    enrollment: enrollmentPolicy(env),
    // Derived from the secret, so it is always the key pushes are signed with.
    vapidPublicKey: async () =>
      (await vapidSignerFromConfig(env.VAPID_PRIVATE_KEY, env.VAPID_SUBJECT))?.publicKeyText ?? null,
    allowLoopbackPushForDev: allowsLoopbackPushForDev(env),
    get extraPushServiceHosts() {
      // Read only by the subscription PUT, so a misconfigured var is logged there, not on every request.
      return extraPushServiceHosts(env);
    },
  };
}
