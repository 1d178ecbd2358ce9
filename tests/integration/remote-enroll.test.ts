/** `burrow enroll --relay <url> [--secret]` against a real relay gated by an operator secret. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrollCommand } from '../../burrow-agent/src/remote-cli/enroll-command.js';
import { RelayHttpError } from '../../burrow-agent/src/remote-cli/relay-http.js';
import { openStateStore } from '../../burrow-agent/src/state/burrow-state.js';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';

const SECRET = 'operator-secret-for-tests-0123456789';
let relay: RelayHandle;

beforeAll(async () => {
  relay = await startRelay({ vars: { ENROLL_SECRET: SECRET } });
});
afterAll(async () => {
  await relay?.stop();
});

describe('enroll', () => {
  it('is refused without the operator secret, in words, and stores nothing', async () => {
    const store = openStateStore(mkdtempSync(join(tmpdir(), 'burrow-enroll-')));
    const error = await enrollCommand({ relayUrl: relay.url, secret: null }, store).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RelayHttpError);
    expect((error as RelayHttpError).status).toBe(401);
    expect((error as Error).message).toMatch(/the relay refused/);
    expect(store.load().enrollment).toBeNull();
  });

  it('stores burrowId, burrowToken, relay URL and a static key with the secret', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'burrow-enroll-'));
    const result = await enrollCommand({ relayUrl: `${relay.url}/`, secret: SECRET }, openStateStore(dir));
    const state = openStateStore(dir).load();
    expect(state.enrollment).toMatchObject({ burrowId: result.burrowId, relayUrl: relay.url });
    expect(state.enrollment?.burrowToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(state.staticKey?.publicKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('refuses a plain-http relay that is not loopback before any request', async () => {
    const store = openStateStore(mkdtempSync(join(tmpdir(), 'burrow-enroll-')));
    await expect(
      enrollCommand({ relayUrl: 'http://relay.example.com', secret: null }, store),
    ).rejects.toThrow(TypeError);
  });
});
