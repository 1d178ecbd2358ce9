/**
 * The session view's first line for a coding agent `resume` started (issue 27, protocol R-DIR-9): which
 * conversation it resumed and since when. It is the phone's own line above the terminal, never a row of the
 * terminal: the agent's screen stays exactly what it drew (most agents clear it as they start, wiping the
 * Burrow's in-terminal banner). The id is shown shortened (the whole of it is in the accessible name, the
 * tooltip, and the text a copy takes).
 */
import type { SessionEntry } from '@burrow/protocol';
import { resumedWords } from '../list/session-text.js';

export function ResumedLine({ entry, nowMs }: { entry: SessionEntry | undefined; nowMs: number }) {
  const words = entry === undefined ? null : resumedWords(entry, nowMs);
  if (words === null) return null;
  return (
    <p className="term-resumed" role="note" aria-label={words.label}>
      <span>Resumed {words.agent} conversation</span>{' '}
      <code className="term-resumed-id" title={words.conversation}>
        {words.conversation}
      </code>{' '}
      <span>— started {words.started}</span>
    </p>
  );
}
