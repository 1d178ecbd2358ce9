import { describe, expect, it } from 'vitest';
import type { PushRegistrationStore } from '../store/push-store.js';
import { browserPushEnvironment } from './browser-push.js';
import { pushStateText } from './push-text.js';

const store = {} as PushRegistrationStore;
const IPHONE = (os: string) =>
  `Mozilla/5.0 (iPhone; CPU iPhone OS ${os} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1`;

describe('the browser push environment on iPhone', () => {
  it('in a Safari tab there is no push to ask for, and the state tells the owner to add Pocket to the Home Screen', () => {
    const env = browserPushEnvironment(store, { standalone: false, userAgent: IPHONE('17_2') });
    expect(env.push).toBeNull();
    expect(env.unsupported).toBe('install-first');
    expect(pushStateText({ kind: 'unsupported', why: 'install-first' })).toMatch(
      /add Pocket to the Home Screen first/,
    );
  });

  it('before iOS 16.4 even the Home Screen app has none, and the state says which iOS it needs', () => {
    const env = browserPushEnvironment(store, { standalone: true, userAgent: IPHONE('16_3') });
    expect(env.push).toBeNull();
    expect(env.unsupported).toBe('too-old');
    expect(pushStateText({ kind: 'unsupported', why: 'too-old' })).toMatch(/iOS 16\.4 or later/);
  });

  it('off iOS nothing is said about the Home Screen', () => {
    const env = browserPushEnvironment(store, {
      standalone: undefined,
      userAgent: 'Mozilla/5.0 (X11; Linux)',
    });
    expect(env.unsupported).toBeUndefined();
  });
});
