/**
 * The session view's first line for a coding agent `resume` started (issue 27, protocol R-DIR-9): which
 * conversation it resumed and since when. It is the phone's own line above the terminal, never a row of the
 * terminal: the agent's screen stays exactly what it drew (most agents clear it as they start, wiping the
 * Burrow's in-terminal banner). One line on the narrowest phone: the id is shortened first, then the words
 * (by style only: the whole of both is in the accessible name, and the id in the tooltip and a copy); the time
 * always shows.
 */
import type { SessionEntry } from '@burrow/protocol';
import { resumedWords } from '../list/session-text.js';

export function ResumedLine({ entry, nowMs }: { entry: SessionEntry | undefined; nowMs: number }) {
  const words = entry === undefined ? null : resumedWords(entry, nowMs);
  if (words === null) return null;
  return (
    <p className="term-resumed" role="note" aria-label={words.label}>
      <span className="term-resumed-what">Resumed {words.agent} conversation</span>{' '}
      <code className="term-resumed-id" title={words.conversation}>
        {words.conversation}
      </code>{' '}
      <span className="term-resumed-when">at {words.started}</span>
    </p>
  );
}
