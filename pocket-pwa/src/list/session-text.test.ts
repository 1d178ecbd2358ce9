/**
 * The list's words for how a session ended: an exit code, or — with none — that it died when the Burrow's
 * daemon restarted (the daemon lists such sessions again after a crash or reboot); said in the row's
 * accessible label too, not only by style.
 */
import type { SessionEntry } from '@burrow/protocol';
import { describe, expect, it } from 'vitest';
import { goneHow, goneText } from '../terminal/gone-session.js';
import {
  DIED_WITH_BURROW_TEXT,
  diedWithBurrow,
  endedSessions,
  exitText,
  exitTone,
  rowLabel,
} from './session-text.js';

const entry = (over: Partial<SessionEntry>): SessionEntry => ({
  id: 'abcdefgh',
  name: 'build',
  title: '',
  cwd: '/home/me',
  command: null,
  watchKey: null,
  cols: 80,
  rows: 24,
  exited: false,
  exitCode: null,
  createdAt: 1,
  lastActivityAt: 1,
  outputOffset: 0,
  status: 'NOTHING_TO_SHOW',
  ringing: false,
  ringingSince: null,
  episodeId: null,
  todo: false,
  notification: null,
  awaited: false,
  ...over,
});

describe('exitText / diedWithBurrow', () => {
  it('a running session has no exit words', () => {
    expect(exitText(entry({}))).toBeNull();
    expect(diedWithBurrow(entry({}))).toBe(false);
  });

  it('an exit with a code says the code', () => {
    expect(exitText(entry({ exited: true, exitCode: 2 }))).toBe('exited (2)');
    expect(diedWithBurrow(entry({ exited: true, exitCode: 0 }))).toBe(false);
  });

  it('an exit without a code died with the daemon, and says so in the row label', () => {
    const died = entry({ exited: true, exitCode: null, todo: true });
    expect(exitText(died)).toBe(DIED_WITH_BURROW_TEXT);
    expect(diedWithBurrow(died)).toBe(true);
    expect(rowLabel(died)).toBe(`build, to do, ${DIED_WITH_BURROW_TEXT}`);
  });
});

describe('issue 17: how an ended or vanished session is shown', () => {
  it('exit 0 is no alarm; a code or a signal is; dying with the Burrow is neither', () => {
    expect(exitTone(entry({ exited: true, exitCode: 0 }))).toBe('ok');
    expect(exitTone(entry({ exited: true, exitCode: 3 }))).toBe('failed');
    expect(exitTone(entry({ exited: true, exitCode: 130 }))).toBe('failed');
    expect(exitTone(entry({ exited: true, exitCode: null }))).toBe('unknown');
    expect(exitTone(entry({ exited: false }))).toBe('unknown');
  });

  it('"Clear ended sessions" takes the ended ones only', () => {
    const list = [
      entry({ id: 'a' }),
      entry({ id: 'b', exited: true, exitCode: 0 }),
      entry({ id: 'c', exited: true }),
    ];
    expect(endedSessions(list).map((e) => e.id)).toEqual(['b', 'c']);
  });

  it('a session gone from the directory was killed (it ran), removed (it had ended) or never existed', () => {
    expect(goneHow(entry({ exited: false }))).toBe('killed');
    expect(goneHow(entry({ exited: true, exitCode: 0 }))).toBe('removed');
    expect(goneHow(undefined)).toBe('missing');
    expect(goneText('killed', 'build', 'desk')).toBe('“build” was killed on desk. Its program has stopped.');
    expect(goneText('removed', 'build', 'desk')).toBe('“build” was removed from the list on desk.');
    expect(goneText('missing', null, 'desk')).toBe('This session does not exist on desk any more.');
  });
});
