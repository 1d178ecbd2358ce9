import { describe, expect, it } from 'vitest';
import { OPEN_PATH_MESSAGE } from '../push/open-path-message.js';
import { type ClientsLike, clickPath, focusOrOpen, type WindowLike } from './notification-click.js';

const ORIGIN = 'https://pocket.example';
const SESSION = `/b/${'A'.repeat(22)}/s/s1`;

class FakeWindow implements WindowLike {
  focused = 0;
  messages: unknown[] = [];
  constructor(readonly url: string) {}
  async focus() {
    this.focused++;
  }
  postMessage(m: unknown) {
    this.messages.push(m);
  }
}

function clientsWith(windows: FakeWindow[]) {
  const opened: string[] = [];
  const clients: ClientsLike = {
    matchAll: async (o) => {
      expect(o).toEqual({ type: 'window', includeUncontrolled: true });
      return windows;
    },
    openWindow: async (url) => {
      opened.push(url);
    },
  };
  return { clients, opened };
}

describe('clickPath', () => {
  it('keeps a session path, and turns anything else into the list', () => {
    expect(clickPath({ path: SESSION })).toBe(SESSION);
    expect(clickPath({ path: 'https://evil.example/b/x' })).toBe('/');
    expect(clickPath({ path: '//evil.example/' })).toBe('/');
    expect(clickPath(null)).toBe('/');
    expect(clickPath({ path: 7 })).toBe('/');
  });
});

describe('focusOrOpen', () => {
  it('focuses an open Pocket window and tells it which session to show', async () => {
    const other = new FakeWindow('https://elsewhere.example/');
    const pocket = new FakeWindow(`${ORIGIN}/`);
    const { clients, opened } = clientsWith([other, pocket]);
    expect(await focusOrOpen(clients, ORIGIN, SESSION)).toBe('focused');
    expect(pocket.focused).toBe(1);
    expect(pocket.messages).toEqual([{ type: OPEN_PATH_MESSAGE, path: SESSION }]);
    expect(other.focused).toBe(0);
    expect(opened).toEqual([]);
  });

  it('opens Pocket on the session when no window is open', async () => {
    const { clients, opened } = clientsWith([new FakeWindow('https://elsewhere.example/')]);
    expect(await focusOrOpen(clients, ORIGIN, SESSION)).toBe('opened');
    expect(opened).toEqual([`${ORIGIN}${SESSION}`]);
  });
});
