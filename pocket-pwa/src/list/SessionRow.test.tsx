/**
 * SessionRow for an ended session: the way it ended is shown in words (an exit code, or that it died when
 * the Burrow restarted), and its menu offers Restart and Remove — a running one offers Kill instead.
 */
import type { SessionEntry } from '@burrow/protocol';
import { fireEvent, render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { SessionRow } from './SessionRow.js';
import { DIED_WITH_BURROW_TEXT } from './session-text.js';

const base: SessionEntry = {
  id: 'abcdefgh',
  name: 'agent',
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
};

function renderRow(entry: SessionEntry, withResume = true) {
  const calls: string[] = [];
  const on = (what: string) => (e: SessionEntry) => void calls.push(`${what} ${e.id}`);
  render(
    <ul>
      <SessionRow
        entry={entry}
        nowMs={2}
        onOpen={on('open')}
        onRename={on('rename')}
        onKill={on('kill')}
        onRestart={on('restart')}
        onRemove={on('remove')}
        onTodo={on('todo')}
        {...(withResume ? { onResume: on('resume') } : {})}
      />
    </ul>,
  );
  return calls;
}

describe('SessionRow, ended sessions', () => {
  it('a session that died with the daemon says so and can be removed', () => {
    const calls = renderRow({ ...base, exited: true });
    expect(screen.getByText(DIED_WITH_BURROW_TEXT)).toBeTruthy();
    expect(screen.getByRole('button', { name: `Open agent, ${DIED_WITH_BURROW_TEXT}` })).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'More actions for agent' }));
    expect(screen.getByRole('button', { name: 'Restart' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Kill…' })).toBeNull();
    fireEvent.click(screen.getByRole('button', { name: 'Remove' }));
    expect(calls).toEqual(['remove abcdefgh']);
  });

  it('a running session offers Kill, not Remove', () => {
    renderRow(base);
    fireEvent.click(screen.getByRole('button', { name: 'More actions for agent' }));
    expect(screen.getByRole('button', { name: 'Kill…' })).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Remove' })).toBeNull();
  });
});

describe('SessionRow, a coding agent that can be resumed (R-DIR-8)', () => {
  const resumable: SessionEntry = {
    ...base,
    exited: true,
    resumable: { agent: 'claude', conversation: '7729da4a-f847-4916-a62c-20aca223ae86' },
  };
  it('says so in words and offers Resume at once', () => {
    const calls = renderRow(resumable);
    expect(screen.getByText('Claude Code conversation can be resumed')).toBeTruthy();
    expect(
      screen.getByRole('button', {
        name: `Open agent, ${DIED_WITH_BURROW_TEXT}, Claude Code conversation can be resumed`,
      }),
    ).toBeTruthy();
    fireEvent.click(screen.getByRole('button', { name: 'Resume Claude Code' }));
    expect(calls).toEqual(['resume abcdefgh']);
  });
  it('no Resume for a session that is not resumable', () => {
    renderRow({ ...base, exited: true });
    expect(screen.queryByRole('button', { name: /^Resume/ })).toBeNull();
  });
  it('no Resume where the connection cannot resume', () => {
    renderRow(resumable, false);
    expect(screen.queryByRole('button', { name: /^Resume/ })).toBeNull();
  });
});
