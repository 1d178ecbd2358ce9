/** `RelayServices` on Cloudflare Workers: Durable Object namespaces, the assets binding, vars and secrets. */
import { isBase64urlOfLength, P256_PUBLIC_KEY_BYTES } from '@burrow/protocol';
import type { Env } from './env.js';
import type { BurrowApi, RelayServices } from './services.js';

export function workerServices(env: Env): RelayServices {
  return {
    burrow: (burrowId) => env.BURROW.get(env.BURROW.idFromName(burrowId)) as unknown as BurrowApi,
    takeSourceToken: (sourceKey, kind) => env.LIMITER.get(env.LIMITER.idFromName(sourceKey)).take(kind),
    refuseSocket(code, reason) {
      const [client, server] = Object.values(new WebSocketPair()) as [WebSocket, WebSocket];
      server.accept();
      server.close(code, reason);
      return new Response(null, { status: 101, webSocket: client });
    },
    fetchAsset: (request) => env.ASSETS.fetch(request),
    enrollSecret: env.ENROLL_SECRET ? env.ENROLL_SECRET : null,
    vapidPublicKey: isBase64urlOfLength(env.VAPID_PUBLIC_KEY, P256_PUBLIC_KEY_BYTES)
      ? env.VAPID_PUBLIC_KEY
      : null,
  };
}
