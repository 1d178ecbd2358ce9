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
