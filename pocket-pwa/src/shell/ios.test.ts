import { describe, expect, it } from 'vitest';
import { homeScreenState, iosPush, iosVersion } from './ios.js';

const IPHONE_17 =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.2 Mobile/15E148 Safari/604.1';
const IPHONE_16_3 =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 16_3 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.3 Mobile/15E148 Safari/604.1';
const IPHONE_16_4_CHROME =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 16_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/112.0.5615.46 Mobile/15E148 Safari/604.1';
/** iPadOS asks for the desktop site by default: a Mac user agent, told apart only by navigator.standalone. */
const IPAD_DESKTOP =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15';
const ANDROID_CHROME =
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';

describe('iOS: Home Screen and Web Push', () => {
  it('navigator.standalone decides: absent is not iOS, false is a browser tab, true is the Home Screen app', () => {
    expect(homeScreenState({ standalone: undefined, userAgent: ANDROID_CHROME })).toBe('not-ios');
    // A desktop Safari user agent on an iPad is still iOS: the property says so, the user agent does not.
    expect(homeScreenState({ standalone: false, userAgent: IPAD_DESKTOP })).toBe('in-browser');
    expect(homeScreenState({ standalone: true, userAgent: IPHONE_17 })).toBe('installed');
  });

  it('reads the iOS version from an iPhone user agent and from iPadOS desktop Safari', () => {
    expect(iosVersion(IPHONE_17)).toEqual({ major: 17, minor: 2 });
    expect(iosVersion(IPHONE_16_4_CHROME)).toEqual({ major: 16, minor: 4 });
    expect(iosVersion(IPAD_DESKTOP)).toEqual({ major: 17, minor: 4 });
    expect(iosVersion('curl/8')).toBeNull();
  });

  it('push only from the Home Screen, and only on iOS 16.4 or later', () => {
    expect(iosPush({ standalone: false, userAgent: IPHONE_17 })).toBe('install-first');
    expect(iosPush({ standalone: true, userAgent: IPHONE_17 })).toBe('available');
    expect(iosPush({ standalone: true, userAgent: IPHONE_16_4_CHROME })).toBe('available');
    expect(iosPush({ standalone: true, userAgent: IPHONE_16_3 })).toBe('too-old');
    // Updating iOS comes first: installing alone would not help.
    expect(iosPush({ standalone: false, userAgent: IPHONE_16_3 })).toBe('too-old');
    expect(iosPush({ standalone: undefined, userAgent: ANDROID_CHROME })).toBe('not-ios');
    // An unknown version is not held against the phone.
    expect(iosPush({ standalone: true, userAgent: 'Pocket' })).toBe('available');
  });
});
