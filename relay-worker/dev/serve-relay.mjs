// @ts-check
/**
 * Runs the relay locally on workerd — what `wrangler dev` does — but with **no inspector** (issue 16.3):
 * `npm start`, the tests (`test/harness.ts`) and the benches start the relay through this file.
 *
 *   node relay-worker/dev/serve-relay.mjs --port 8787 [--ip 127.0.0.1] [--script bundle.js]
 *     [--assets dir] [--persist-to dir] [--env-file file] [--var NAME:VALUE]… [--log-level warn]
 *
 * Why not `wrangler dev`: its inspector is a DevTools endpoint with no authentication. Any local user who
 * connects to it can evaluate code inside the relay and read every secret it holds (a Burrow's bearer token,
 * the VAPID key). wrangler 4.86's CLI cannot turn it off. It always starts two inspectors:
 *  - its InspectorProxyWorker on `--inspector-port` (default 9229) and `--inspector-ip`. Those flags only move
 *    it: the CLI builds `dev.inspector` as `{ hostname, port }` and never as `false`
 *    (wrangler-dist/cli.js, the `dev` command's `inspector: { hostname: args.inspectorIp, port: args.inspectorPort }`);
 *  - workerd's own inspector (`--inspector-addr=localhost:0`, a random loopback port). Miniflare passes it
 *    whenever `dev.inspector !== false`, whatever the port flags say.
 * A port below 1024 would not help either: only root could bind it, and then only root could use the relay.
 * wrangler's programmatic dev server (`unstable_startWorker`, the same DevEnv the CLI runs) accepts
 * `dev.inspector: false`. Then neither listener exists and workerd gets no `--inspector-addr`.
 * `tests/integration/attack-local.test.ts` checks, as another OS user, that no port of the relay speaks
 * DevTools.
 * Leaving out `dev.registry` also turns off the dev registry and workerd's `--debug-port`. That port lets any
 * local process call into this worker's services; the relay never needs it.
 *
 * Two more development surfaces are closed here (issue 24.1), and `attack-local.test.ts` probes every port of
 * the relay's process group, as another OS user, for each route wrangler 4.86 and miniflare define:
 *  - miniflare's **Local Explorer** (`/cdn-cgi/explorer/…` on the relay's port and on workerd's inner entry
 *    port): an unauthenticated UI and API that lists every Durable Object by name and runs SQL on its storage.
 *    Another local user read every token hash and rewrote the Burrow's. wrangler turns it on unless the
 *    environment says `X_LOCAL_EXPLORER=false` (its `getLocalExplorerEnabledFromEnv`, read when the dev server
 *    builds miniflare's options), so it is set below before wrangler is loaded, whatever the caller passed, and
 *    checked once the relay is up: a relay that still answers the Explorer's API stops instead of serving.
 *  - miniflare's **loopback server** in this process (`owner-only-listeners.mjs`): only this user may connect.
 * What stays, with no effect: miniflare's handler triggers (`/cdn-cgi/handler/scheduled`, `…/email`; wrangler
 * always turns them on, and the relay has neither handler) and the platform proxy (`/cdn-cgi/platform-proxy`,
 * which needs a random per-process secret).
 *
 * Prints `relay ready on <url>` when it serves, and stops cleanly on SIGTERM / SIGINT.
 *
 * Plain JavaScript, type-checked by `tsc` (`// @ts-check` and JSDoc). Run under tsx, it was about 5 s slower
 * per relay start on this machine: tsx's loader sits in front of wrangler's 10 MB CLI bundle.
 */
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { restrictListenersToOwner } from './owner-only-listeners.mjs';

// Before wrangler is loaded: it reads the variable when it builds miniflare's options (issue 24.1).
process.env.X_LOCAL_EXPLORER = 'false';
restrictListenersToOwner({
  onRefused: (detail) => process.stderr.write(`serve-relay: ${detail}\n`),
});
// `require`, not `import()`: wrangler is a 12.7 MB CommonJS bundle, and importing it from ESM makes Node scan
// all of it twice (module-format detection and cjs-module-lexer's export scan), about 1.2 s of CPU per relay
// start on this machine, 45 % of the start (a --cpu-prof of this file, 4 Dec 2026).
const { unstable_startWorker } = createRequire(import.meta.url)('wrangler');

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** @type {readonly ('debug' | 'info' | 'log' | 'warn' | 'error' | 'none')[]} */
const LOG_LEVELS = ['debug', 'info', 'log', 'warn', 'error', 'none'];

/**
 * `NAME:VALUE` of `--var`, as `wrangler dev --var` takes it.
 * @param {string} text
 * @returns {[string, { type: 'plain_text', value: string }]}
 */
function parseVar(text) {
  const at = text.indexOf(':');
  if (at <= 0) throw new RangeError(`--var takes NAME:VALUE, got "${text.slice(0, 40)}"`);
  return [text.slice(0, at), { type: 'plain_text', value: text.slice(at + 1) }];
}

async function main() {
  const { values } = parseArgs({
    options: {
      config: { type: 'string', default: join(REPO_ROOT, 'wrangler.toml') },
      script: { type: 'string' },
      ip: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string' },
      assets: { type: 'string' },
      'persist-to': { type: 'string' },
      'env-file': { type: 'string' },
      var: { type: 'string', multiple: true, default: [] },
      'log-level': { type: 'string', default: 'log' },
    },
    strict: true,
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new RangeError('--port must be 1…65535');
  const logLevel = LOG_LEVELS.find((l) => l === values['log-level']);
  if (logLevel === undefined) throw new RangeError(`--log-level must be one of ${LOG_LEVELS.join(', ')}`);
  const bindings = Object.fromEntries(values.var.map(parseVar));
  const script = values.script;
  const worker = await unstable_startWorker({
    config: values.config,
    // A prebuilt bundle (the tests snapshot one) is served as is, and never reloaded under running sockets.
    ...(script !== undefined ? { entrypoint: resolve(script), build: { bundle: false } } : {}),
    ...(values.assets !== undefined ? { assets: resolve(values.assets) } : {}),
    ...(values['env-file'] !== undefined ? { envFiles: [resolve(values['env-file'])] } : {}),
    bindings,
    sendMetrics: false,
    dev: {
      inspector: false,
      remote: false,
      server: { hostname: values.ip, port },
      persist: values['persist-to'] !== undefined ? resolve(values['persist-to']) : false,
      watch: script === undefined,
      liveReload: false,
      logLevel,
    },
  });
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    void worker.dispose().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  await worker.ready;
  const origin = (await worker.url).origin;
  await refuseIfExplorerAnswers(origin);
  process.stdout.write(`relay ready on ${origin} (no inspector, no Local Explorer)\n`);
}

/**
 * The Local Explorer's API answers JSON at this path when it is on; off, the path reaches the relay, which
 * answers its app page or a 404. Throws (and the relay stops) while the Explorer answers.
 * @param {string} origin
 */
async function refuseIfExplorerAnswers(origin) {
  const response = await fetch(`${origin}/cdn-cgi/explorer/api/local/workers`);
  const body = await response.text();
  if (response.ok && /^\s*\{/.test(body) && body.includes('"result"')) {
    throw new Error(
      'the Local Explorer answers on the relay (X_LOCAL_EXPLORER was not honoured): not serving',
    );
  }
}

main().catch((error) => {
  process.stderr.write(
    `serve-relay: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
  );
  process.exit(1);
});
