import { describe, expect, it } from 'vitest';
import type { SessionAlertView } from '../attention/index.js';
import { publicNotification, QUIET_PUBLIC_STATE, toPublicState } from './public-state.js';

const view = (over: Partial<SessionAlertView>): SessionAlertView => ({
  sessionId: 'abcdefgh',
  status: 'NOTHING_TO_SHOW',
  ringing: false,
  ringingSince: null,
  episodeId: null,
  todo: false,
  notification: null,
  awaited: false,
  watchKey: null,
  command: null,
  engaged: false,
  exited: false,
  ...over,
});

describe('toPublicState', () => {
  it('projects a ring with a boot-tagged episode id and an integer timestamp', () => {
    const s = toPublicState(
      view({ status: 'ALERT_RINGING', ringing: true, ringingSince: 1700000000000.4, episodeId: 7 }),
      'k2boot00',
    );
    expect(s).toMatchObject({ status: 'ALERT_RINGING', ringing: true, ringingSince: 1700000000000 });
    expect(s.episodeId).toBe('k2boot00-7');
  });

  it('is quiet for no ring', () => {
    expect(toPublicState(view({}), 'tag')).toEqual(QUIET_PUBLIC_STATE);
  });
});

describe('publicNotification', () => {
  it('renames the exit source and fills missing fields with empty text', () => {
    expect(publicNotification({ source: 'exit', title: 'Command finished', body: null })).toEqual({
      source: 'command-exit',
      title: 'Command finished',
      body: '',
    });
    expect(publicNotification(null)).toBeNull();
  });

  it('bounds text to the protocol limits and strips control and bidi characters', () => {
    const n = publicNotification({ source: 'osc9', title: 'a\u202eb\u0007', body: 'x'.repeat(5000) });
    expect(n?.title).toBe('a b ');
    expect(n?.body).toHaveLength(1024);
  });
});
