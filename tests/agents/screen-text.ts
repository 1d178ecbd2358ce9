/** What a headless xterm shows, as the agent tests read it. */
import type xtermHeadless from '@xterm/headless';

type Terminal = InstanceType<typeof xtermHeadless.Terminal>;

/** The visible screen (the active buffer's viewport) as text: one line per row, trailing spaces and rows trimmed. */
export function screenText(term: Terminal): string {
  const buf = term.buffer.active;
  const lines: string[] = [];
  for (let y = 0; y < term.rows; y++)
    lines.push(buf.getLine(buf.viewportY + y)?.translateToString(true) ?? '');
  return lines.join('\n').replace(/\n+$/, '');
}
