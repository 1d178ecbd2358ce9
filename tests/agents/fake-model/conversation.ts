/**
 * The one shape every wire protocol's request is read into, so a scenario decides the model's next move once
 * for all four agents: the turns so far (user text, the model's own text and tool calls, tool results) and the
 * tools the agent offered.
 */

/** A tool call the model made, as the agent sent it back in its history. */
export interface ToolCall {
  readonly id: string;
  readonly name: string;
  readonly args: unknown;
}

export type Turn =
  | { readonly role: 'user'; readonly text: string }
  | { readonly role: 'assistant'; readonly text: string; readonly toolCalls: readonly ToolCall[] }
  | { readonly role: 'tool'; readonly callId: string; readonly output: string };

/** What the agent offered: a tool's name and its JSON schema for the arguments (as sent, unvalidated). */
export interface ToolSpec {
  readonly name: string;
  readonly schema: unknown;
}

/** One model request, whatever the protocol. */
export interface Conversation {
  readonly model: string;
  /** The system prompt / instructions, joined (empty when none). */
  readonly system: string;
  readonly turns: readonly Turn[];
  readonly tools: readonly ToolSpec[];
  readonly stream: boolean;
}

/** What the fake model answers: text, or a call of the agent's shell tool with a command line. */
export type Reply =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'shell'; readonly command: string; readonly text?: string }
  /** Raw JSON text for a structured-output side request (Gemini's next-speaker check and the like). */
  | { readonly kind: 'json'; readonly json: unknown };

/** The text of every user turn, in order. */
export function userTexts(conv: Conversation): string[] {
  return conv.turns.flatMap((t) => (t.role === 'user' ? [t.text] : []));
}

/** Everything the conversation carries as one string (user and model text, tool calls and results). */
export function transcript(conv: Conversation): string {
  return conv.turns
    .map((t) => {
      if (t.role === 'user') return `user: ${t.text}`;
      if (t.role === 'tool') return `tool ${t.callId}: ${t.output}`;
      const calls = t.toolCalls.map((c) => ` call ${c.name}(${JSON.stringify(c.args)})`).join('');
      return `assistant: ${t.text}${calls}`;
    })
    .join('\n');
}

/** Bounded stringify of unknown content parts: tool results may be strings or arrays of text parts. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map(contentText).join('');
  if (content !== null && typeof content === 'object') {
    const o = content as Record<string, unknown>;
    if (typeof o.text === 'string') return o.text;
    if (typeof o.output === 'string') return o.output;
    if ('content' in o) return contentText(o.content);
    return JSON.stringify(o);
  }
  return content === undefined || content === null ? '' : String(content);
}
