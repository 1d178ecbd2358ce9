/**
 * OpenAI Chat Completions (`POST /v1/chat/completions`), as opencode's bundled `@ai-sdk/openai-compatible`
 * provider speaks it: `messages` with system / user / assistant (tool_calls) / tool roles; replies streamed as
 * `chat.completion.chunk` deltas (content, then tool_calls with the arguments) ending with a finish_reason
 * chunk, a usage chunk and `data: [DONE]`.
 */
import type { ServerResponse } from 'node:http';
import { type Conversation, contentText, type Reply, type ToolCall, type Turn } from './conversation.js';
import { fakeId, roughTokens } from './ids.js';
import { findShellTool, shellArgs } from './shell-tool.js';
import { sendEvent, sendJson, startSse } from './sse.js';

interface Message {
  readonly role: string;
  readonly content?: unknown;
  readonly tool_calls?: {
    readonly id: string;
    readonly function: { readonly name: string; readonly arguments: string };
  }[];
  readonly tool_call_id?: string;
}

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export function parseChat(body: Record<string, unknown>): Conversation {
  const turns: Turn[] = [];
  const system: string[] = [];
  for (const m of (body.messages as Message[] | undefined) ?? []) {
    if (m.role === 'system' || m.role === 'developer') system.push(contentText(m.content));
    else if (m.role === 'user') turns.push({ role: 'user', text: contentText(m.content) });
    else if (m.role === 'tool')
      turns.push({ role: 'tool', callId: m.tool_call_id ?? '', output: contentText(m.content) });
    else if (m.role === 'assistant') {
      const toolCalls: ToolCall[] = (m.tool_calls ?? []).map((c) => ({
        id: c.id,
        name: c.function.name,
        args: parseArgs(c.function.arguments),
      }));
      turns.push({ role: 'assistant', text: contentText(m.content), toolCalls });
    }
  }
  const tools = (
    (body.tools as { function?: { name: string; parameters?: unknown } }[] | undefined) ?? []
  ).flatMap((t) =>
    t.function === undefined ? [] : [{ name: t.function.name, schema: t.function.parameters }],
  );
  return {
    model: String(body.model ?? ''),
    system: system.join('\n'),
    turns,
    tools,
    stream: body.stream === true,
  };
}

export function answerChat(res: ServerResponse, conv: Conversation, reply: Reply, inputTokens: number): void {
  let text = reply.kind === 'json' ? JSON.stringify(reply.json) : reply.text;
  let call: { id: string; type: 'function'; function: { name: string; arguments: string } } | undefined;
  if (reply.kind === 'shell') {
    const tool = findShellTool(conv.tools);
    if (tool === undefined)
      throw new Error(`no shell tool offered (tools: ${conv.tools.map((t) => t.name).join(', ')})`);
    call = {
      id: fakeId('call_'),
      type: 'function',
      function: { name: tool.name, arguments: JSON.stringify(shellArgs(tool, reply.command)) },
    };
  }
  text ??= '';
  const finish = call === undefined ? 'stop' : 'tool_calls';
  const outputTokens = roughTokens([text, call]);
  const usage = {
    prompt_tokens: inputTokens,
    completion_tokens: outputTokens,
    total_tokens: inputTokens + outputTokens,
  };
  const id = fakeId('chatcmpl-');
  const created = Math.floor(Date.now() / 1000);
  if (!conv.stream) {
    const message = {
      role: 'assistant',
      content: text === '' ? null : text,
      ...(call === undefined ? {} : { tool_calls: [call] }),
    };
    sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model: conv.model,
      choices: [{ index: 0, message, finish_reason: finish }],
      usage,
    });
    return;
  }
  const chunk = (delta: unknown, finish_reason: string | null) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: conv.model,
    choices: [{ index: 0, delta, finish_reason }],
  });
  startSse(res);
  sendEvent(res, chunk({ role: 'assistant', content: '' }, null));
  if (text !== '') sendEvent(res, chunk({ content: text }, null));
  if (call !== undefined) sendEvent(res, chunk({ tool_calls: [{ index: 0, ...call }] }, null));
  sendEvent(res, chunk({}, finish));
  sendEvent(res, { id, object: 'chat.completion.chunk', created, model: conv.model, choices: [], usage });
  sendEvent(res, '[DONE]');
  res.end();
}

/** `GET /v1/models`: the one model the fake serves, in OpenAI's list shape. */
export function answerOpenAiModels(res: ServerResponse, model: string): void {
  sendJson(res, 200, {
    object: 'list',
    data: [{ id: model, object: 'model', created: 0, owned_by: 'burrow-fake' }],
  });
}
