/**
 * Target: the control socket's JSON messages after framing (burrow-agent/src/control/control-messages.ts and
 * handshake.ts): the valibot schemas `control-server.ts` runs on every hello, request and stream message.
 *
 * Feeds a valid example of every request method, stream message and handshake message, structurally
 * mutated (members replaced by hostile values, deleted, added — `__proto__`, `constructor` — or wrapped),
 * and random JSON, through the same `safeParse` steps the server takes (request envelope, then its method's
 * params). Expected rejection: none thrown — a refusal is a failed `safeParse`. Findings: any exception (a
 * check that throws on a value an earlier check refused, as RL-HTTP-7's p256dh did); a parsed value that does
 * not parse again to itself; a method accepted that is not one of RequestParams' own keys.
 */
import fc from 'fast-check';
import * as v from 'valibot';
import {
  RequestParams,
  RequestSchema,
  StreamMessageSchema,
} from '../../../burrow-agent/src/control/control-messages.js';
import { HelloSchema, WelcomeSchema } from '../../../burrow-agent/src/control/handshake.js';
import { type FuzzTarget, invariant } from '../fuzz-target.js';
import { mutatedJson } from '../mutate.js';

const NONCE = 'A'.repeat(43);
/** One valid params object per method (what `burrow` sends). */
const VALID_PARAMS: Record<keyof typeof RequestParams, unknown> = {
  status: {},
  list: {},
  create: { name: 'build', cwd: '/tmp', command: ['bash', '-l'], cols: 80, rows: 24 },
  kill: { session: 'build' },
  resume: { session: 'build' },
  rename: { session: 'build', name: 'tests' },
  attach: { session: 'build', cols: 120, rows: 40, resumeFrom: 1024 },
  history: { session: 'build', before: 500, count: 100 },
  enroll: { relayUrl: 'https://relay.example', secret: null },
  pair: { label: 'phone' },
  devices: {},
  'devices-revoke': { deviceId: 'abcdefghijklmnop' },
  'push-test': {},
  todo: { session: 'build', action: 'toggle' },
  dismiss: { session: 'build' },
  await: { session: 'build', until: 'quiet', timeoutMs: 60_000 },
  'watch-list': {},
  'watch-add': { key: 'npm test' },
  'watch-remove': { key: 'npm test' },
  'settings-get': {},
  'settings-set': { key: 'quietMs', value: 5000 },
  'network-policy-get': {},
  'network-policy-set': { policy: { direct: 'off', iceServers: [] } },
};
const METHODS = Object.keys(VALID_PARAMS) as (keyof typeof RequestParams)[];

const validRequest = fc
  .tuple(fc.constantFrom(...METHODS), fc.integer({ min: 0, max: 2 ** 31 }))
  .map(([method, id]) => ({ id, method, params: VALID_PARAMS[method] }));
const validStream = fc.constantFrom<unknown>(
  { type: 'resize', cols: 80, rows: 24 },
  { type: 'presence', focused: true },
  { type: 'typing' },
  { type: 'detach' },
  { type: 'pair-answer', accept: false },
);
const validHandshake = fc.constantFrom<unknown>(
  { type: 'hello', v: 1, nonce: NONCE, proof: NONCE },
  { type: 'welcome', proof: NONCE },
);

type Case = { readonly schema: 'request' | 'stream' | 'handshake'; readonly json: unknown };
const input: fc.Arbitrary<Case> = fc.oneof(
  fc
    .oneof({ weight: 4, arbitrary: mutatedJson(validRequest) }, validRequest, fc.jsonValue({ maxDepth: 3 }))
    .map((json) => ({ schema: 'request' as const, json })),
  fc.oneof(mutatedJson(validStream), validStream).map((json) => ({ schema: 'stream' as const, json })),
  fc
    .oneof(mutatedJson(validHandshake), validHandshake)
    .map((json) => ({ schema: 'handshake' as const, json })),
);

/** safeParse, and a value it accepts must be accepted again unchanged. */
function parse(schema: v.GenericSchema, json: unknown, what: string): unknown | undefined {
  const result = v.safeParse(schema, json);
  if (!result.success) return undefined;
  const again = v.safeParse(schema, structuredClone(result.output));
  invariant(
    again.success && JSON.stringify(again.output) === JSON.stringify(result.output),
    `${what}: not stable`,
  );
  return result.output;
}

export const controlMessagesTarget: FuzzTarget<Case> = {
  name: 'control-messages',
  about:
    'control socket requests (envelope + per-method params), stream and handshake messages: mutated JSON',
  async: false,
  testRuns: 3_000,
  async start() {
    return {
      input,
      isExpected: () => false,
      run({ schema, json }) {
        if (schema === 'stream')
          return parse(StreamMessageSchema, json, 'stream') === undefined ? 'rejected' : 'accepted';
        if (schema === 'handshake') {
          const hello = parse(HelloSchema, json, 'hello');
          const welcome = parse(WelcomeSchema, json, 'welcome');
          return hello === undefined && welcome === undefined ? 'rejected' : 'accepted';
        }
        const request = parse(RequestSchema, json, 'request') as
          | { method: keyof typeof RequestParams; params: unknown }
          | undefined;
        if (request === undefined) return 'rejected';
        invariant(
          Object.hasOwn(RequestParams, request.method),
          `method ${String(request.method)} is not a RequestParams key`,
        );
        // As control-server.ts does: the envelope first, then the method's own params schema.
        return parse(RequestParams[request.method], request.params, request.method) === undefined
          ? 'rejected'
          : 'accepted';
      },
    };
  },
};
