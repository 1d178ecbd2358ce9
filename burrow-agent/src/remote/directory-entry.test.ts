import { encodeBurrowMessage } from '@burrow/protocol';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { QUIET_PUBLIC_STATE } from '../attention-host/public-state.js';
import type { SessionInfo } from '../session/session.js';
import { directoryEntry } from './directory-entry.js';

const idle = QUIET_PUBLIC_STATE;

const info = (over: Partial<SessionInfo>): SessionInfo => ({
  id: 'abcdefgh',
  name: 'shell',
  command: ['/bin/sh'],
  cwd: '/home/u',
  pid: 1,
  createdAt: 10,
  status: 'running',
  exitCode: null,
  signal: null,
  cols: 80,
  rows: 24,
  viewers: 0,
  offset: 0,
  lastOutputAt: null,
  ...over,
});

describe('directoryEntry', () => {
  it('maps exits (a signal becomes 128 + n) and activity', () => {
    const e = directoryEntry(info({ status: 'exited', signal: 9, lastOutputAt: 50, offset: 7 }), idle);
    expect(e).toMatchObject({ exited: true, exitCode: 137, lastActivityAt: 50, outputOffset: 7 });
    expect(directoryEntry(info({}), idle).exitCode).toBeNull();
  });

  it('R-DIR-9: a resumed session says which conversation, running and ended; a resumable one is not "resumed"', () => {
    const resumed = { agent: 'gemini', conversation: '5b1f7c2a-0d9e-4e61-8a3b-6c2d1e0f9a47' };
    expect(directoryEntry(info({ resumed }), idle).resumed).toEqual(resumed);
    expect(directoryEntry(info({ status: 'exited', exitCode: 0, resumed }), idle).resumed).toEqual(resumed);
    expect(directoryEntry(info({}), idle)).not.toHaveProperty('resumed');
    const both = directoryEntry(
      info({ status: 'exited', diedWithDaemon: true, resumable: resumed, resumed }),
      idle,
    );
    expect(both).not.toHaveProperty('resumed');
    expect(() => encodeBurrowMessage({ type: 'directory', sessions: [both] })).not.toThrow();
  });

  it('a resumed conversation as the wire bounds it, whatever it holds', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 300, unit: 'binary' }),
        fc.string({ maxLength: 300, unit: 'binary' }),
        (agent, conversation) => {
          const entry = directoryEntry(info({ resumed: { agent, conversation } }), idle);
          expect(entry.resumed).toBeTruthy();
          expect(() => encodeBurrowMessage({ type: 'directory', sessions: [entry] })).not.toThrow();
        },
      ),
      { seed: 7, numRuns: 300 },
    );
  });

  it('always produces an entry protocol accepts, whatever the cwd and name hold', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 2000, unit: 'binary' }),
        fc.string({ maxLength: 100, unit: 'binary' }),
        (cwd, name) => {
          const entry = directoryEntry(info({ cwd, name }), idle);
          expect(() => encodeBurrowMessage({ type: 'directory', sessions: [entry] })).not.toThrow();
        },
      ),
      { seed: 5, numRuns: 300 },
    );
  });
});
