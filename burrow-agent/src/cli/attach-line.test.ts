/**
 * The line `burrow attach` prints as a session appears (issue 27): a resumed coding agent says which
 * conversation it resumed; whatever the daemon sent is shown, never interpreted.
 */
import { describe, expect, it } from 'vitest';
import { attachLine, resumedText } from './attach-line.js';

const KEYS = { help: 'Ctrl-B d', fitHelp: 'Ctrl-B f' };
const ID = '2e9d4c1a-6b7f-4a83-9c5d-1f0e8b7a6d55';
/** 14:02 local time on some day. */
const AT = new Date(2026, 11, 3, 14, 2, 30).getTime();

describe('burrow attach: the line it prints', () => {
  it('names the session and the keys', () => {
    expect(attachLine('web', { name: 'web', createdAt: AT }, KEYS)).toBe(
      '[burrow: attached to web; detach with Ctrl-B d, fit it to this terminal with Ctrl-B f]',
    );
  });

  it('for a resumed agent: which conversation, and when it was resumed', () => {
    const session = { name: 'api', createdAt: AT, resumed: { agent: 'claude', conversation: ID } };
    expect(attachLine('api', session, KEYS)).toBe(
      `[burrow: attached to api; resumed Claude Code conversation ${ID} at 14:02; detach with Ctrl-B d, fit it to this terminal with Ctrl-B f]`,
    );
    for (const [agent, name] of [
      ['codex', 'Codex'],
      ['gemini', 'Gemini CLI'],
      ['opencode', 'opencode'],
    ])
      expect(resumedText({ resumed: { agent, conversation: 'x1' } })).toBe(`${name} conversation x1`);
  });

  it('the session as typed when the answer has no name; nothing about a resume that is not one', () => {
    expect(attachLine('3', undefined, KEYS)).toMatch(/^\[burrow: attached to 3; detach/);
    for (const resumed of [null, 'claude', { agent: 'claude' }, { agent: 1, conversation: ID }, []])
      expect(resumedText({ resumed })).toBeNull();
  });

  it('shows escapes and bidi controls from the daemon instead of sending them', () => {
    const line = attachLine(
      'x',
      { name: 'a\x1b]52;c;AAAA\x07b', resumed: { agent: 'ev\u202eil', conversation: 'id\x1b[2J' } },
      KEYS,
    );
    expect(line).not.toMatch(/[\x00-\x1f\x7f-\x9f\u202a-\u202e]/);
    expect(line).toContain('a\\x1b]52;c;AAAA\\x07b');
    expect(line).toContain('conversation id\\x1b[2J');
  });
});
