/**
 * The session view's first line for a resumed coding agent (issue 27, R-DIR-9): which conversation and since
 * when, announced by its whole words (role note, accessible name); nothing for any other session.
 */
import type { SessionEntry } from '@burrow/protocol';
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { clockText, resumedWords } from '../list/session-text.js';
import { sessionEntry } from '../test-support/memory-connection.js';
import { ResumedLine } from './ResumedLine.js';

const ID = '2e9d4c1a-6b7f-4a83-9c5d-1f0e8b7a6d55';
const STARTED = new Date(2026, 11, 3, 14, 2, 30).getTime();
const NOW = new Date(2026, 11, 3, 18, 45).getTime();

const entry = (over: Partial<SessionEntry>): SessionEntry =>
  sessionEntry({ id: 'abcdefgh', name: 'agent', createdAt: STARTED, lastActivityAt: STARTED, ...over });

describe('the resumed line above the terminal', () => {
  it('says which agent and conversation, and when this session started on it', () => {
    render(<ResumedLine entry={entry({ resumed: { agent: 'claude', conversation: ID } })} nowMs={NOW} />);
    const started = clockText(STARTED, NOW);
    const line = screen.getByRole('note', {
      name: `Resumed Claude Code conversation ${ID} at ${started}`,
    });
    expect(line.textContent).toBe(`Resumed Claude Code conversation ${ID} at ${started}`);
    // The id is shortened on screen by style only: the whole of it is there to read, copy and hover.
    expect(screen.getByTitle(ID).textContent).toBe(ID);
  });

  it('each agent by the name people know; an unknown one as sent', () => {
    for (const [agent, name] of [
      ['codex', 'Codex'],
      ['gemini', 'Gemini CLI'],
      ['opencode', 'opencode'],
      ['aider', 'aider'],
    ] as const)
      expect(resumedWords(entry({ resumed: { agent, conversation: 'c1' } }), NOW)?.agent).toBe(name);
  });

  it('nothing for a session that was not resumed (nor for one that can be, still ended)', () => {
    const { container } = render(
      <>
        <ResumedLine entry={entry({})} nowMs={NOW} />
        <ResumedLine entry={entry({ resumed: null })} nowMs={NOW} />
        <ResumedLine
          entry={entry({ exited: true, resumable: { agent: 'claude', conversation: ID } })}
          nowMs={NOW}
        />
        <ResumedLine entry={undefined} nowMs={NOW} />
      </>,
    );
    expect(container.textContent).toBe('');
  });

  it('the time of day today, with the date on another day', () => {
    expect(clockText(STARTED, NOW)).toMatch(/^\d{1,2}[:.]\d{2}/);
    expect(clockText(STARTED, NOW)).toContain('02');
    const nextDay = NOW + 24 * 3600_000;
    expect(clockText(STARTED, nextDay)).toContain(clockText(STARTED, NOW));
    expect(clockText(STARTED, nextDay)).toMatch(/3/);
    expect(clockText(STARTED, nextDay).length).toBeGreaterThan(clockText(STARTED, NOW).length);
  });
});
