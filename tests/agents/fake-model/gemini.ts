/**
 * Gemini API (`POST /v1beta/models/{model}:streamGenerateContent?alt=sse`, `:generateContent`,
 * `:countTokens`), as Gemini CLI speaks it through @google/genai: `contents` of user / model turns whose parts
 * are text, functionCall or functionResponse; replies as SSE `data:` chunks of GenerateContentResponse
 * (candidates[0].content.parts, finishReason, usageMetadata), or one JSON response when not streaming.
 */
import type { ServerResponse } from 'node:http';
import { type Conversation, contentText, type Reply, type ToolCall, type Turn } from './conversation.js';
import { fakeId, roughTokens } from './ids.js';
import { findShellTool, shellArgs } from './shell-tool.js';
import { sendEvent, sendJson, startSse } from './sse.js';

interface Part {
  readonly text?: string;
  readonly thought?: boolean;
  readonly functionCall?: { readonly id?: string; readonly name: string; readonly args?: unknown };
  readonly functionResponse?: { readonly id?: string; readonly name: string; readonly response?: unknown };
}

/** What the path names: the model and the method (`streamGenerateContent`, `generateContent`, `countTokens`). */
export function geminiRoute(path: string): { model: string; method: string } | undefined {
  const m = /^\/v1(?:beta|alpha)?\/models\/([^:/]+):([A-Za-z]+)$/.exec(path);
  return m === null ? undefined : { model: decodeURIComponent(m[1]!), method: m[2]! };
}

/**
 * Gemini CLI sends its session context (date, OS, directory listing) in the first user message as a
 * `<session_context>` block: not the user's words.
 */
function withoutContext(text: string): string {
  return text.replace(/<session_context>[\s\S]*?<\/session_context>/g, '').trim();
}

export function parseGemini(body: Record<string, unknown>, model: string, stream: boolean): Conversation {
  const turns: Turn[] = [];
  for (const c of (body.contents as { role?: string; parts?: Part[] }[] | undefined) ?? []) {
    const parts = c.parts ?? [];
    if (c.role === 'model') {
      const toolCalls: ToolCall[] = parts.flatMap((p) =>
        p.functionCall === undefined
          ? []
          : [{ id: p.functionCall.id ?? '', name: p.functionCall.name, args: p.functionCall.args }],
      );
      const text = parts
        .flatMap((p) => (p.text !== undefined && p.thought !== true ? [p.text] : []))
        .join('');
      turns.push({ role: 'assistant', text, toolCalls });
      continue;
    }
    for (const p of parts) {
      if (p.functionResponse !== undefined) {
        turns.push({
          role: 'tool',
          callId: p.functionResponse.id ?? p.functionResponse.name,
          output: contentText(p.functionResponse.response),
        });
      }
    }
    const text = parts
      .flatMap((p) => (p.text !== undefined ? [withoutContext(p.text)] : []))
      .filter((t) => t !== '')
      .join('\n');
    if (text !== '') turns.push({ role: 'user', text });
  }
  const tools = (
    (body.tools as
      | { functionDeclarations?: { name: string; parameters?: unknown; parametersJsonSchema?: unknown }[] }[]
      | undefined) ?? []
  )
    .flatMap((t) => t.functionDeclarations ?? [])
    .map((f) => ({ name: f.name, schema: f.parametersJsonSchema ?? f.parameters }));
  return {
    model,
    system: contentText((body.systemInstruction as { parts?: unknown } | undefined)?.parts),
    turns,
    tools,
    stream,
  };
}

/** A side request that asked for JSON (Gemini CLI's next-speaker and loop checks use a response schema). */
export function geminiWantsJson(body: Record<string, unknown>): unknown {
  const config = (body.generationConfig ?? body.config ?? {}) as Record<string, unknown>;
  if (config.responseMimeType !== 'application/json') return undefined;
  return config.responseJsonSchema ?? config.responseSchema ?? {};
}

function replyParts(conv: Conversation, reply: Reply): Part[] {
  if (reply.kind === 'text') return [{ text: reply.text }];
  if (reply.kind === 'json') return [{ text: JSON.stringify(reply.json) }];
  const tool = findShellTool(conv.tools);
  if (tool === undefined)
    throw new Error(`no shell tool offered (tools: ${conv.tools.map((t) => t.name).join(', ')})`);
  const parts: Part[] = reply.text === undefined ? [] : [{ text: reply.text }];
  parts.push({
    functionCall: { id: fakeId('call_'), name: tool.name, args: shellArgs(tool, reply.command) },
  });
  return parts;
}

export function answerGemini(
  res: ServerResponse,
  conv: Conversation,
  reply: Reply,
  inputTokens: number,
): void {
  const parts = replyParts(conv, reply);
  const outputTokens = roughTokens(parts);
  const response = {
    candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }],
    usageMetadata: {
      promptTokenCount: inputTokens,
      candidatesTokenCount: outputTokens,
      totalTokenCount: inputTokens + outputTokens,
    },
    modelVersion: conv.model,
    responseId: fakeId(''),
  };
  if (!conv.stream) {
    sendJson(res, 200, response);
    return;
  }
  startSse(res);
  sendEvent(res, response);
  res.end();
}

export function answerGeminiCountTokens(res: ServerResponse, body: unknown): void {
  sendJson(res, 200, { totalTokens: roughTokens(body) });
}
