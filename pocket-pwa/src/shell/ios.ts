/**
 * What Pocket must know about iPhone and iPad, where every browser is WebKit and a web app gets its full
 * powers only from the Home Screen (none of which runs here, hence pure functions over what the page sees):
 *  - `navigator.standalone` exists only in iOS/iPadOS WebKit: false in a browser tab, true when opened from
 *    the Home Screen. Its presence is the iOS test (iPadOS sends a desktop Mac user agent).
 *  - Web Push on iOS needs iOS 16.4 or later AND the app opened from the Home Screen: in a tab there is no
 *    PushManager at all (WebKit's "Web Push for Web Apps on iOS and iPadOS", 16.4).
 */

/** What the page reads to decide; `navigator` in the app, anything in tests. */
export interface IosSignals {
  /** `navigator.standalone`: undefined outside iOS/iPadOS. */
  readonly standalone: boolean | undefined;
  readonly userAgent: string;
}

export function iosSignals(): IosSignals {
  const nav = navigator as Navigator & { standalone?: unknown };
  return {
    standalone: typeof nav.standalone === 'boolean' ? nav.standalone : undefined,
    userAgent: navigator.userAgent,
  };
}

export type HomeScreenState = 'not-ios' | 'in-browser' | 'installed';

export function homeScreenState(s: IosSignals): HomeScreenState {
  if (s.standalone === undefined) return 'not-ios';
  return s.standalone ? 'installed' : 'in-browser';
}

export interface Version {
  readonly major: number;
  readonly minor: number;
}

/** The first iOS with Web Push for Home Screen web apps. */
export const IOS_WEB_PUSH_SINCE: Version = { major: 16, minor: 4 };

/**
 * The iOS version from the user agent: iPhone's "CPU iPhone OS 17_2 like Mac OS X", or, for iPadOS's desktop
 * user agent, Safari's "Version/17.2". null when neither is there.
 */
export function iosVersion(userAgent: string): Version | null {
  const m = / OS (\d+)_(\d+)/.exec(userAgent) ?? /Version\/(\d+)\.(\d+)/.exec(userAgent);
  return m === null ? null : { major: Number(m[1]), minor: Number(m[2]) };
}

const atLeast = (v: Version, min: Version) =>
  v.major > min.major || (v.major === min.major && v.minor >= min.minor);

export type IosPush = 'not-ios' | 'install-first' | 'too-old' | 'available';

/**
 * Whether Web Push can work on this iOS device and, if not, what the owner can do: add Pocket to the Home
 * Screen, or nothing short of updating iOS. An unknown version is given the benefit of the doubt.
 */
export function iosPush(s: IosSignals): IosPush {
  const state = homeScreenState(s);
  if (state === 'not-ios') return 'not-ios';
  const version = iosVersion(s.userAgent);
  if (version !== null && !atLeast(version, IOS_WEB_PUSH_SINCE)) return 'too-old';
  return state === 'in-browser' ? 'install-first' : 'available';
}
