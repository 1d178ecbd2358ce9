/** The relay Worker's entry: the Hono app, and the Durable Object classes wrangler.toml binds. */
import { createApp } from './app.js';
import type { Env } from './env.js';
import { workerServices } from './worker-services.js';

export { BurrowObject } from './burrow-object.js';
export { SourceLimiter } from './source-limiter.js';

const app = createApp((_request, bindings) => workerServices(bindings as Env));

export default {
  fetch: (request: Request, env: Env, ctx: ExecutionContext) => app.fetch(request, env, ctx),
} satisfies ExportedHandler<Env>;
