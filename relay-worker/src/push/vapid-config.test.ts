import { afterEach, describe, expect, it, vi } from 'vitest';
import { vapidSignerFromConfig } from './vapid-config.js';
import { generateVapidKeys } from './vapid-keys.js';

const SUBJECT = 'mailto:ops@example.com';

describe('vapidSignerFromConfig [RL-PUSH-6, RL-PUSH-7]', () => {
  afterEach(() => vi.restoreAllMocks());

  it('is null without a secret or a subject', async () => {
    const { secret } = await generateVapidKeys();
    expect(await vapidSignerFromConfig(undefined, SUBJECT)).toBeNull();
    expect(await vapidSignerFromConfig('', SUBJECT)).toBeNull();
    expect(await vapidSignerFromConfig(secret, undefined)).toBeNull();
    expect(await vapidSignerFromConfig(secret, '')).toBeNull();
  });

  it('imports once per configuration and publishes the secret’s public half', async () => {
    const { keys, secret } = await generateVapidKeys();
    const first = vapidSignerFromConfig(secret, SUBJECT);
    expect(vapidSignerFromConfig(secret, SUBJECT)).toBe(first);
    const signer = await first;
    expect(signer?.publicKeyText).toBe(keys.publicKeyText);
    // A changed configuration is a new signer.
    const other = await generateVapidKeys();
    expect((await vapidSignerFromConfig(other.secret, SUBJECT))?.publicKeyText).toBe(
      other.keys.publicKeyText,
    );
  });

  it('is null, and logs no key material, for an unusable secret or subject', async () => {
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const { secret } = await generateVapidKeys();
    expect(await vapidSignerFromConfig('{"kty":"EC"}', SUBJECT)).toBeNull();
    expect(await vapidSignerFromConfig('not json', SUBJECT)).toBeNull();
    expect(await vapidSignerFromConfig(secret, 'mailto:me@localhost')).toBeNull();
    expect(await vapidSignerFromConfig(secret, 'http://example.com')).toBeNull();
    const d = (JSON.parse(secret) as { d: string }).d;
    for (const call of errors.mock.calls) expect(String(call[0])).not.toContain(d);
    expect(errors).toHaveBeenCalledTimes(4);
  });
});
