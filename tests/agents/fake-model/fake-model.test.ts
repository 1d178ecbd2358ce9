/**
 * The fake model API over real HTTP: each wire protocol's request read into one conversation, the scenario's
 * moves streamed back in the event order the real APIs use, every request recorded with its secrets redacted,
 * and bad input answered with an error instead of a crash. (That the agents accept these answers is
 * agents-smoke.test.ts's job: there the real CLIs are the parsers.)
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPROVAL_COMMAND, APPROVAL_DONE_TEXT, approvalScenario } from './scenario.js';
import { FakeModelServer, jsonForSchema } from './server.js';
import { SHELL_TOOL_NAMES, shellArgs } from './shell-tool.js';

let api: FakeModelServer;
beforeAll(async () => {
  api = await FakeModelServer.start(approvalScenario());
});
afterAll(async () => {
  await api.close();
});

interface SseEvent {
  readonly event: string | undefined;
  readonly data: string;
}

/** SSE framing as the spec defines it (blank-line separated; `event:` and `data:` fields). */
function parseSse(text: string): SseEvent[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
      const data = lines
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6))
        .join('\n');
      return { event, data };
    });
}

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${api.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() };
}

const bashTool = {
  name: 'Bash',
  input_schema: {
    type: 'object',
    properties: { command: { type: 'string' }, description: { type: 'string' } },
    required: ['command'],
  },
};

describe('Anthropic Messages', () => {
  it('answers a message naming approved.txt with a streamed tool_use of the Bash tool, in the API event order', async () => {
    const r = await post(
      '/v1/messages',
      {
        model: 'claude-x',
        stream: true,
        tools: [bashTool],
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Please create approved.txt' }] }],
      },
      { 'x-api-key': 'sk-ant-secret-value' },
    );
    expect(r.status).toBe(200);
    expect(r.type).toContain('text/event-stream');
    const events = parseSse(r.text);
    expect(events.map((e) => e.event)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    for (const e of events) expect(JSON.parse(e.data).type).toBe(e.event);
    const toolStart = JSON.parse(events[4]!.data);
    expect(toolStart.content_block).toMatchObject({ type: 'tool_use', name: 'Bash', input: {} });
    const input = JSON.parse(JSON.parse(events[5]!.data).delta.partial_json);
    expect(input.command).toBe(APPROVAL_COMMAND);
    expect(JSON.parse(events[7]!.data).delta.stop_reason).toBe('tool_use');
  });

  it('answers the tool result with the final text, end_turn; non-streaming requests get one message', async () => {
    const r = await post('/v1/messages', {
      model: 'claude-x',
      tools: [bashTool],
      messages: [
        { role: 'user', content: 'Please create approved.txt' },
        {
          role: 'assistant',
          content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'x' } }],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'ok' }] },
      ],
    });
    const message = JSON.parse(r.text);
    expect(message).toMatchObject({ type: 'message', role: 'assistant', stop_reason: 'end_turn' });
    expect(message.content).toEqual([{ type: 'text', text: APPROVAL_DONE_TEXT }]);
  });

  it('counts tokens', async () => {
    const r = await post('/v1/messages/count_tokens', {
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
    });
    expect(JSON.parse(r.text).input_tokens).toBeGreaterThan(0);
  });
});

describe('OpenAI Responses', () => {
  const execCommand = {
    type: 'function',
    name: 'exec_command',
    parameters: {
      type: 'object',
      properties: {
        cmd: { type: 'string' },
        justification: { type: 'string' },
        sandbox_permissions: { type: 'string', enum: ['use_default', 'require_escalated'] },
      },
      required: ['cmd'],
    },
  };

  it('streams created, the items (added, delta, done) and completed with an id and usage, as Codex reads them', async () => {
    const r = await post('/v1/responses', {
      model: 'm',
      stream: true,
      tools: [execCommand],
      input: [
        {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: '<environment_context>x</environment_context>' }],
        },
        {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: 'Please create approved.txt' }],
        },
      ],
    });
    const events = parseSse(r.text);
    expect(events.map((e) => e.event)).toEqual([
      'response.created',
      'response.output_item.added',
      'response.output_text.delta',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const call = JSON.parse(events[6]!.data).item;
    expect(call).toMatchObject({ type: 'function_call', name: 'exec_command' });
    expect(JSON.parse(call.arguments)).toMatchObject({
      cmd: APPROVAL_COMMAND,
      sandbox_permissions: 'require_escalated',
    });
    const completed = JSON.parse(events[7]!.data).response;
    expect(completed.id).toMatch(/^resp_/);
    expect(completed.usage.total_tokens).toBeGreaterThan(0);
    // Codex's own context messages are not the user's words.
    const recorded = api.requests.at(-1)!;
    expect(recorded.conversation!.turns).toEqual([{ role: 'user', text: 'Please create approved.txt' }]);
  });
});

describe('Gemini', () => {
  it('streams a functionCall of run_shell_command, and answers the functionResponse with text', async () => {
    const tools = [
      {
        functionDeclarations: [
          {
            name: 'run_shell_command',
            parametersJsonSchema: { type: 'object', properties: { command: { type: 'string' } } },
          },
        ],
      },
    ];
    const first = await post('/v1beta/models/gemini-x:streamGenerateContent?alt=sse', {
      contents: [
        {
          role: 'user',
          parts: [
            { text: '<session_context>\nThis is the Gemini CLI.\n</session_context>' },
            { text: 'Please create approved.txt' },
          ],
        },
      ],
      tools,
    });
    const chunk = JSON.parse(parseSse(first.text)[0]!.data);
    // Gemini CLI's own context is not the user's words.
    expect(api.requests.at(-1)!.conversation!.turns).toEqual([
      { role: 'user', text: 'Please create approved.txt' },
    ]);
    const call = chunk.candidates[0].content.parts.at(-1).functionCall;
    expect(call).toMatchObject({ name: 'run_shell_command', args: { command: APPROVAL_COMMAND } });
    const second = await post('/v1beta/models/gemini-x:streamGenerateContent?alt=sse&key=AIza-secret', {
      contents: [
        { role: 'user', parts: [{ text: 'Please create approved.txt' }] },
        { role: 'model', parts: [{ functionCall: call }] },
        {
          role: 'user',
          parts: [{ functionResponse: { id: call.id, name: call.name, response: { output: '' } } }],
        },
      ],
      tools,
    });
    expect(JSON.parse(parseSse(second.text)[0]!.data).candidates[0].content.parts).toEqual([
      { text: APPROVAL_DONE_TEXT },
    ]);
    expect(api.requests.at(-1)!.query.key).toBe('<redacted>');
  });

  it('answers a structured side call with JSON its schema accepts', async () => {
    const schema = {
      type: 'object',
      properties: {
        reasoning: { type: 'string' },
        next_speaker: { type: 'string', enum: ['user', 'model'] },
      },
      required: ['reasoning', 'next_speaker'],
    };
    const r = await post('/v1beta/models/flash:generateContent', {
      contents: [{ role: 'user', parts: [{ text: 'who speaks next?' }] }],
      generationConfig: { responseMimeType: 'application/json', responseJsonSchema: schema },
    });
    const text = JSON.parse(r.text).candidates[0].content.parts[0].text;
    expect(JSON.parse(text)).toEqual({ reasoning: 'user', next_speaker: 'user' });
  });
});

describe('OpenAI Chat Completions', () => {
  it('streams the tool call in deltas, then finish_reason tool_calls, usage and [DONE]', async () => {
    const r = await post('/v1/chat/completions', {
      model: 'm',
      stream: true,
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: 'Please create approved.txt' },
      ],
      tools: [
        {
          type: 'function',
          function: {
            name: 'bash',
            parameters: {
              type: 'object',
              properties: { command: { type: 'string' }, description: { type: 'string' } },
              required: ['command', 'description'],
            },
          },
        },
      ],
    });
    const events = parseSse(r.text);
    expect(events.at(-1)!.data).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.data));
    const call = chunks.flatMap((c) =>
      c.choices.flatMap((ch: { delta: { tool_calls?: unknown[] } }) => ch.delta.tool_calls ?? []),
    )[0];
    expect(call.function.name).toBe('bash');
    expect(JSON.parse(call.function.arguments).command).toBe(APPROVAL_COMMAND);
    expect(chunks.some((c) => c.choices[0]?.finish_reason === 'tool_calls')).toBe(true);
    expect(chunks.at(-1).usage.total_tokens).toBeGreaterThan(0);
  });
});

describe('recording', () => {
  it('keeps headers without their secrets, and 404s (recorded) what it does not serve', async () => {
    const r = await fetch(`${api.url}/api/oauth/usage`, {
      headers: { authorization: 'Bearer top-secret-token' },
    });
    expect(r.status).toBe(404);
    const recorded = api.unexpected().at(-1)!;
    expect(recorded.path).toBe('/api/oauth/usage');
    expect(recorded.headers.authorization).toBe('<redacted>');
    expect(JSON.stringify(api.requests)).not.toContain('top-secret-token');
    expect(JSON.stringify(api.requests)).not.toContain('sk-ant-secret-value');
  });

  it('waitFor resolves with a request that arrives later, and times out naming what it saw', async () => {
    const waiting = api.waitFor((r) => r.path === '/later', 'the later request', 5_000);
    await fetch(`${api.url}/later`);
    expect((await waiting).path).toBe('/later');
    await expect(api.waitFor((r) => r.path === '/never', 'a request that never comes', 50)).rejects.toThrow(
      /waiting for a request that never comes; requests so far: .*GET \/later 404/,
    );
  });

  it('answers malformed and mis-shaped bodies with an error and keeps serving', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(
          '/v1/messages',
          '/v1/responses',
          '/v1/chat/completions',
          '/v1beta/models/x:generateContent',
        ),
        fc.oneof(fc.string(), fc.json(), fc.constant('{"messages": 5}'), fc.constant('{"input": [null]}')),
        async (path, body) => {
          const r = await post(path, body);
          expect([200, 500]).toContain(r.status);
        },
      ),
      { numRuns: 60 },
    );
    const ok = await post('/v1/messages', {
      model: 'm',
      tools: [bashTool],
      messages: [{ role: 'user', content: 'hello' }],
    });
    expect(JSON.parse(ok.text).content[0].text).toBe('Reply 1: hello');
  });
});

describe('scenario', () => {
  const scenario = approvalScenario();
  const conv = (turns: Parameters<typeof scenario.reply>[0]['turns']) => ({
    model: 'm',
    system: '',
    turns,
    tools: [],
    stream: true,
  });

  it('asks once for the command, finishes after its result, and numbers later replies by the user turns sent', () => {
    expect(scenario.reply(conv([{ role: 'user', text: 'make approved.txt' }]))).toMatchObject({
      kind: 'shell',
    });
    expect(
      scenario.reply(
        conv([
          { role: 'user', text: 'make approved.txt' },
          { role: 'assistant', text: '', toolCalls: [{ id: '1', name: 'Bash', args: {} }] },
          { role: 'tool', callId: '1', output: '' },
        ]),
      ),
    ).toEqual({ kind: 'text', text: APPROVAL_DONE_TEXT });
    expect(
      scenario.reply(
        conv([
          { role: 'user', text: 'make approved.txt' },
          { role: 'assistant', text: 'done', toolCalls: [] },
          { role: 'user', text: 'and now?' },
        ]),
      ),
    ).toEqual({ kind: 'text', text: 'Reply 2: and now?' });
  });
});

describe('shell tool arguments', () => {
  it('fill each known shape from its schema, and name what is missing', () => {
    const tool = (name: string, properties: Record<string, unknown>, required: string[] = []) => ({
      name,
      schema: { type: 'object', properties, required },
    });
    expect(shellArgs(tool('shell', { command: { type: 'array' } }), 'ls')).toEqual({
      command: ['bash', '-lc', 'ls'],
    });
    expect(shellArgs(tool('run_shell_command', { command: { type: 'string' } }), 'ls')).toEqual({
      command: 'ls',
    });
    expect(() => shellArgs(tool('bash', { script: { type: 'string' } }), 'ls')).toThrow(
      /no command\/cmd parameter/,
    );
    expect(() =>
      shellArgs(tool('bash', { command: { type: 'string' }, timeout: {} }, ['timeout']), 'ls'),
    ).toThrow(/requires "timeout"/);
    expect(SHELL_TOOL_NAMES).toContain('Bash');
  });

  it('jsonForSchema fills required properties and takes enums first value', () => {
    expect(
      jsonForSchema({ type: 'OBJECT', properties: { n: { type: 'INTEGER' }, a: { type: 'ARRAY' } } }),
    ).toEqual({ n: 0, a: [] });
  });
});
