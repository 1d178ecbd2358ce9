/**
 * Anthropic Messages API (`POST /v1/messages`), as Claude Code and opencode's Anthropic provider speak it:
 * requests read into a {@link Conversation}; replies streamed as message_start, content_block_start / _delta
 * / _stop per block (text_delta, input_json_delta for tool_use), message_delta with the stop_reason, and
 * message_stop — or one JSON message when `stream` is false. Also `POST /v1/messages/count_tokens`.
 */
import type { ServerResponse } from 'node:http';
import { type Conversation, contentText, type Reply, type ToolCall, type Turn } from './conversation.js';
import { fakeId, roughTokens } from './ids.js';
import { findShellTool, shellArgs } from './shell-tool.js';
import { sendEvent, sendJson, startSse } from './sse.js';

interface Block {
  readonly type: string;
  readonly text?: string;
  readonly id?: string;
  readonly name?: string;
  readonly input?: unknown;
  readonly tool_use_id?: string;
  readonly content?: unknown;
}

/** Claude Code adds context to user messages in blocks of their own; they are not what the user typed. */
function isReminder(text: string): boolean {
  return text.trimStart().startsWith('<system-reminder>');
}

export function parseAnthropic(body: Record<string, unknown>): Conversation {
  const turns: Turn[] = [];
  const midSystem: string[] = [];
  for (const m of (body.messages as { role: string; content: string | Block[] }[] | undefined) ?? []) {
    const blocks: Block[] = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    // Claude Code 2.1 sends context as `system` messages inside the conversation (beta
    // mid-conversation-system-2026-04-07): instructions, not a turn.
    if (m.role === 'system') {
      midSystem.push(contentText(blocks));
      continue;
    }
    if (m.role === 'assistant') {
      const toolCalls: ToolCall[] = blocks
        .filter((b) => b.type === 'tool_use')
        .map((b) => ({ id: b.id ?? '', name: b.name ?? '', args: b.input }));
      const text = blocks.flatMap((b) => (b.type === 'text' ? [b.text ?? ''] : [])).join('');
      turns.push({ role: 'assistant', text, toolCalls });
      continue;
    }
    for (const b of blocks) {
      if (b.type === 'tool_result')
        turns.push({ role: 'tool', callId: b.tool_use_id ?? '', output: contentText(b.content) });
    }
    const text = blocks
      .flatMap((b) => (b.type === 'text' && !isReminder(b.text ?? '') ? [b.text ?? ''] : []))
      .join('\n');
    if (text !== '') turns.push({ role: 'user', text });
  }
  const system = body.system;
  return {
    model: String(body.model ?? ''),
    system: [typeof system === 'string' ? system : contentText(system), ...midSystem].join('\n'),
    turns,
    tools: ((body.tools as { name: string; input_schema?: unknown }[] | undefined) ?? []).map((t) => ({
      name: t.name,
      schema: t.input_schema,
    })),
    stream: body.stream === true,
  };
}

/** The content blocks a reply becomes. */
function replyBlocks(conv: Conversation, reply: Reply): Block[] {
  if (reply.kind === 'text') return [{ type: 'text', text: reply.text }];
  if (reply.kind === 'json') return [{ type: 'text', text: JSON.stringify(reply.json) }];
  const tool = findShellTool(conv.tools);
  if (tool === undefined)
    throw new Error(`no shell tool offered (tools: ${conv.tools.map((t) => t.name).join(', ')})`);
  const blocks: Block[] = reply.text === undefined ? [] : [{ type: 'text', text: reply.text }];
  blocks.push({
    type: 'tool_use',
    id: fakeId('toolu_'),
    name: tool.name,
    input: shellArgs(tool, reply.command),
  });
  return blocks;
}

export function answerAnthropic(
  res: ServerResponse,
  conv: Conversation,
  reply: Reply,
  inputTokens: number,
): void {
  const blocks = replyBlocks(conv, reply);
  const stopReason = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
  const outputTokens = roughTokens(blocks);
  const message = {
    id: fakeId('msg_'),
    type: 'message',
    role: 'assistant',
    model: conv.model,
    content: [] as Block[],
    stop_reason: null as string | null,
    stop_sequence: null,
    usage: {
      input_tokens: inputTokens,
      output_tokens: 1,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  };
  if (!conv.stream) {
    sendJson(res, 200, {
      ...message,
      content: blocks,
      stop_reason: stopReason,
      usage: { ...message.usage, output_tokens: outputTokens },
    });
    return;
  }
  startSse(res);
  sendEvent(res, { type: 'message_start', message }, 'message_start');
  blocks.forEach((block, index) => {
    const start = block.type === 'tool_use' ? { ...block, input: {} } : { type: 'text', text: '' };
    sendEvent(res, { type: 'content_block_start', index, content_block: start }, 'content_block_start');
    const delta =
      block.type === 'tool_use'
        ? { type: 'input_json_delta', partial_json: JSON.stringify(block.input) }
        : { type: 'text_delta', text: block.text };
    sendEvent(res, { type: 'content_block_delta', index, delta }, 'content_block_delta');
    sendEvent(res, { type: 'content_block_stop', index }, 'content_block_stop');
  });
  sendEvent(
    res,
    {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: outputTokens },
    },
    'message_delta',
  );
  sendEvent(res, { type: 'message_stop' }, 'message_stop');
  res.end();
}

export function answerCountTokens(res: ServerResponse, body: unknown): void {
  sendJson(res, 200, { input_tokens: roughTokens(body) });
}
