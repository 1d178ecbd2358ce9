/**
 * OpenAI Responses API (`POST /v1/responses`), as Codex CLI speaks it to a custom provider with
 * `wire_api = "responses"`. Codex reads (codex-rs/codex-api/src/sse/responses.rs): `response.created`,
 * `response.output_item.added`, `response.output_text.delta`, `response.output_item.done` (the item it keeps),
 * and `response.completed` (whose `response.id` and `usage` it needs; a stream closed without it is an error).
 */
import type { ServerResponse } from 'node:http';
import { type Conversation, contentText, type Reply, type ToolCall, type Turn } from './conversation.js';
import { fakeId, roughTokens } from './ids.js';
import { findShellTool, shellArgs } from './shell-tool.js';
import { sendEvent, startSse } from './sse.js';

interface Item {
  readonly type?: string;
  readonly role?: string;
  readonly content?: unknown;
  readonly name?: string;
  readonly arguments?: string;
  readonly call_id?: string;
  readonly output?: unknown;
  readonly input?: string;
}

/** Context Codex sends as user messages of its own (environment, AGENTS.md, permissions): not the user's words. */
const CONTEXT_PREFIXES = ['<environment_context>', '<user_instructions>', '# AGENTS.md', '<permissions', '<'];

function isContext(text: string): boolean {
  const t = text.trimStart();
  return CONTEXT_PREFIXES.some((p) => (p === '<' ? /^<[a-z_]+>/.test(t) : t.startsWith(p)));
}

function parseArgs(text: string | undefined): unknown {
  try {
    return JSON.parse(text ?? '');
  } catch {
    return text;
  }
}

export function parseResponses(body: Record<string, unknown>): Conversation {
  const turns: Turn[] = [];
  const input = body.input;
  const items: Item[] =
    typeof input === 'string'
      ? [{ type: 'message', role: 'user', content: input }]
      : ((input as Item[]) ?? []);
  for (const item of items) {
    const type = item.type ?? 'message';
    if (type === 'message' && item.role === 'user') {
      const parts = Array.isArray(item.content)
        ? (item.content as { text?: string }[])
        : [{ text: contentText(item.content) }];
      const text = parts
        .flatMap((p) => (p.text !== undefined && !isContext(p.text) ? [p.text] : []))
        .join('\n');
      if (text !== '') turns.push({ role: 'user', text });
    } else if (type === 'message' && item.role === 'assistant') {
      turns.push({ role: 'assistant', text: contentText(item.content), toolCalls: [] });
    } else if (type === 'function_call' || type === 'custom_tool_call') {
      const call: ToolCall = {
        id: item.call_id ?? '',
        name: item.name ?? '',
        args: parseArgs(item.arguments ?? item.input),
      };
      const prev = turns.at(-1);
      // One model response may hold a message and calls; keep them in one assistant turn.
      if (prev?.role === 'assistant')
        turns[turns.length - 1] = { ...prev, toolCalls: [...prev.toolCalls, call] };
      else turns.push({ role: 'assistant', text: '', toolCalls: [call] });
    } else if (type === 'function_call_output' || type === 'custom_tool_call_output') {
      turns.push({ role: 'tool', callId: item.call_id ?? '', output: contentText(item.output) });
    }
  }
  const tools = ((body.tools as { type?: string; name?: string; parameters?: unknown }[] | undefined) ?? [])
    .filter((t) => t.name !== undefined)
    .map((t) => ({ name: t.name!, schema: t.parameters }));
  return {
    model: String(body.model ?? ''),
    system: typeof body.instructions === 'string' ? body.instructions : '',
    turns,
    tools,
    stream: body.stream !== false,
  };
}

function replyItems(conv: Conversation, reply: Reply): Record<string, unknown>[] {
  const message = (text: string) => ({
    type: 'message',
    id: fakeId('msg_'),
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text, annotations: [] }],
  });
  if (reply.kind === 'text') return [message(reply.text)];
  if (reply.kind === 'json') return [message(JSON.stringify(reply.json))];
  const tool = findShellTool(conv.tools);
  if (tool === undefined)
    throw new Error(`no shell tool offered (tools: ${conv.tools.map((t) => t.name).join(', ')})`);
  const items: Record<string, unknown>[] = reply.text === undefined ? [] : [message(reply.text)];
  items.push({
    type: 'function_call',
    id: fakeId('fc_'),
    call_id: fakeId('call_'),
    name: tool.name,
    arguments: JSON.stringify(shellArgs(tool, reply.command)),
    status: 'completed',
  });
  return items;
}

export function answerResponses(
  res: ServerResponse,
  conv: Conversation,
  reply: Reply,
  inputTokens: number,
): void {
  const items = replyItems(conv, reply);
  const id = fakeId('resp_');
  const base = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model: conv.model };
  const outputTokens = roughTokens(items);
  startSse(res);
  sendEvent(
    res,
    { type: 'response.created', response: { ...base, status: 'in_progress', output: [] } },
    'response.created',
  );
  items.forEach((item, index) => {
    const added =
      item.type === 'message'
        ? { ...item, status: 'in_progress', content: [] }
        : { ...item, status: 'in_progress' };
    sendEvent(
      res,
      { type: 'response.output_item.added', output_index: index, item: added },
      'response.output_item.added',
    );
    if (item.type === 'message') {
      const text = (item.content as { text: string }[])[0]!.text;
      sendEvent(
        res,
        {
          type: 'response.output_text.delta',
          item_id: item.id,
          output_index: index,
          content_index: 0,
          delta: text,
        },
        'response.output_text.delta',
      );
    } else {
      sendEvent(
        res,
        {
          type: 'response.function_call_arguments.done',
          item_id: item.id,
          output_index: index,
          arguments: item.arguments,
        },
        'response.function_call_arguments.done',
      );
    }
    sendEvent(
      res,
      { type: 'response.output_item.done', output_index: index, item },
      'response.output_item.done',
    );
  });
  const usage = {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: outputTokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + outputTokens,
  };
  sendEvent(
    res,
    { type: 'response.completed', response: { ...base, status: 'completed', output: items, usage } },
    'response.completed',
  );
  res.end();
}
