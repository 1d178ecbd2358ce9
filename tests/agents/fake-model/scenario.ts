/**
 * Scenarios: what the fake model says next, decided from the conversation alone (pure, so a resumed
 * conversation gets the same answers as the original and a test can predict every reply).
 */
import { type Conversation, type Reply, userTexts } from './conversation.js';

export interface Scenario {
  /** The model's next move in the agent's main loop (a request that offers the shell tool). */
  reply(conv: Conversation): Reply;
  /** Side requests (titles, summaries, topic checks: no shell tool offered) get this text. */
  sideText(conv: Conversation): string;
}

/** The command the approval scenario asks each agent to run; every agent asks permission for it by default. */
export const APPROVAL_COMMAND = 'touch approved.txt';
/** Words in the final message after the tool ran, for tests that wait for the turn's end on screen. */
export const APPROVAL_DONE_TEXT = 'Done: approved.txt is there.';

export interface ApprovalScenarioOptions {
  /** A user message containing this starts the tool call (default: "approved.txt"). */
  readonly trigger?: string;
  readonly command?: string;
}

/**
 * Turn 1: a user message that mentions the trigger is answered with a call of the shell tool running `command`
 * (the permission prompt). After the tool result: {@link APPROVAL_DONE_TEXT}. Any other user message is answered
 * `Reply <n>: <what the user said>`, n counting the user's messages — so a resumed conversation's next answer
 * shows how many earlier turns the agent sent back.
 */
export function approvalScenario(options: ApprovalScenarioOptions = {}): Scenario {
  const trigger = options.trigger ?? 'approved.txt';
  const command = options.command ?? APPROVAL_COMMAND;
  return {
    reply(conv) {
      const turns = conv.turns;
      const lastUser = lastIndex(turns, (t) => t.role === 'user');
      const since = turns.slice(lastUser + 1);
      if (since.some((t) => t.role === 'tool')) return { kind: 'text', text: APPROVAL_DONE_TEXT };
      const texts = userTexts(conv);
      const said = texts.at(-1) ?? '';
      if (said.includes(trigger) && !since.some((t) => t.role === 'assistant' && t.toolCalls.length > 0)) {
        return { kind: 'shell', command, text: `I will run \`${command}\`.` };
      }
      return { kind: 'text', text: `Reply ${texts.length}: ${oneLine(said)}` };
    },
    sideText: () => 'Burrow test conversation',
  };
}

function lastIndex<T>(items: readonly T[], ok: (t: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (ok(items[i]!)) return i;
  return -1;
}

/** The user's words on one short line (agents wrap user text in tags and reminders; keep the gist). */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > 80 ? `${flat.slice(0, 77)}...` : flat;
}
