/**
 * The fake model API: one Node HTTP server on 127.0.0.1 (port 0) that answers the four wire protocols the
 * pinned agents speak — Anthropic Messages (Claude Code), OpenAI Responses (Codex), Gemini generateContent
 * (Gemini CLI), OpenAI Chat Completions (opencode) — from one {@link Scenario}, and records every request
 * (parsed body, headers without secrets) so a test can assert what an agent sent.
 *
 *   const api = await FakeModelServer.start(approvalScenario());
 *   ... start an agent with api.url ...
 *   await api.waitFor((r) => r.conversation?.turns.some((t) => t.role === 'tool') ?? false, 'the tool result');
 *   await api.close();
 *
 * Anything else an agent asks for (telemetry, update checks, model lists it cannot use) gets a 404 and is
 * recorded too, so `unexpected()` shows what a new agent version started calling.
 */
import { EventEmitter } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { answerAnthropic, answerCountTokens, parseAnthropic } from './anthropic-messages.js';
import type { Conversation, Reply } from './conversation.js';
import {
  answerGemini,
  answerGeminiCountTokens,
  geminiRoute,
  geminiWantsJson,
  parseGemini,
} from './gemini.js';
import { roughTokens } from './ids.js';
import { answerChat, answerOpenAiModels, parseChat } from './openai-chat.js';
import { answerResponses, parseResponses } from './openai-responses.js';
import type { Scenario } from './scenario.js';
import { findShellTool } from './shell-tool.js';
import { sendJson } from './sse.js';

/** A request body larger than this is refused (Claude Code's system prompt and tools are ~100 KB). */
export const MAX_BODY_BYTES = 16 * 1024 * 1024;
/** Requests kept; older ones are dropped first (a test runs a handful of turns, a few hundred requests at most). */
export const MAX_RECORDED_REQUESTS = 5_000;
/** Headers never recorded: they carry the (fake) keys, and a recorded log must be safe to print. */
const SECRET_HEADERS = new Set([
  'authorization',
  'x-api-key',
  'x-goog-api-key',
  'api-key',
  'cookie',
  'proxy-authorization',
]);
/** Query parameters never recorded (the Gemini API accepts the key as `?key=`). */
const SECRET_PARAMS = new Set(['key', 'api_key']);

export type WireProtocol = 'anthropic' | 'openai-responses' | 'gemini' | 'openai-chat';

export interface RecordedRequest {
  readonly seq: number;
  /** Milliseconds since the server started. */
  readonly at: number;
  readonly method: string;
  readonly path: string;
  readonly query: Readonly<Record<string, string>>;
  readonly headers: Readonly<Record<string, string>>;
  /** The parsed JSON body, or the raw text when it is not JSON, or undefined when empty. */
  readonly body: unknown;
  /** Set for model calls (a generation request in one of the four protocols). */
  readonly protocol?: WireProtocol;
  readonly conversation?: Conversation;
  /** True when the request offered the agent's shell tool (its main loop, not a title or summary call). */
  readonly mainLoop?: boolean;
  readonly reply?: Reply;
  readonly status: number;
}

export class FakeModelServer {
  readonly #requests: RecordedRequest[] = [];
  readonly #events = new EventEmitter();
  readonly #errors: string[] = [];
  #seq = 0;
  readonly #started = Date.now();

  private constructor(
    private readonly server: Server,
    private readonly scenario: Scenario,
    /** The model name `GET /v1/models` lists (what the launch configs select). */
    readonly modelName: string,
    private readonly latencyMs: number,
  ) {}

  /**
   * `latencyMs` delays each main-loop answer (the model "thinking"), so a turn lasts long enough for
   * whatever a test does meanwhile — e.g. a person leaving before the turn ends.
   */
  static async start(
    scenario: Scenario,
    options: { modelName?: string; latencyMs?: number } = {},
  ): Promise<FakeModelServer> {
    let self: FakeModelServer | undefined;
    const server = createServer((req, res) => {
      self!.handle(req, res).catch((err: unknown) => {
        self!.#errors.push(String(err));
        if (!res.headersSent) sendJson(res, 500, { error: { type: 'api_error', message: String(err) } });
        else res.end();
      });
    });
    self = new FakeModelServer(
      server,
      scenario,
      options.modelName ?? 'burrow-fake-model',
      options.latencyMs ?? 0,
    );
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return self;
  }

  /** `http://127.0.0.1:<port>` (no trailing slash, no path). */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  get requests(): readonly RecordedRequest[] {
    return this.#requests;
  }

  /** Model calls only, optionally only the agent's main loop. */
  modelRequests(options: { mainLoop?: boolean } = {}): RecordedRequest[] {
    return this.#requests.filter(
      (r) => r.protocol !== undefined && (options.mainLoop !== true || r.mainLoop === true),
    );
  }

  /** Requests that were not model calls and got a 404: what an agent tried that the fake does not serve. */
  unexpected(): RecordedRequest[] {
    return this.#requests.filter((r) => r.status === 404);
  }

  /** Errors thrown while answering (a scenario that could not find the shell tool, a malformed body). */
  get errors(): readonly string[] {
    return this.#errors;
  }

  /** The errors so far, cleared (for a log that prints each once). */
  takeErrors(): string[] {
    return this.#errors.splice(0);
  }

  /** Resolves with the first recorded request (past or future) that satisfies `ok`. */
  waitFor(ok: (r: RecordedRequest) => boolean, what: string, ms = 60_000): Promise<RecordedRequest> {
    const found = this.#requests.find(ok);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#events.off('request', check);
        const seen = this.#requests.map((r) => `${r.method} ${r.path} ${r.status}`).join('; ');
        reject(
          new Error(
            `timed out after ${ms} ms waiting for ${what}; requests so far: ${seen || 'none'}; errors: ${this.#errors.join('; ') || 'none'}`,
          ),
        );
      }, ms);
      const check = (r: RecordedRequest) => {
        if (!ok(r)) return;
        clearTimeout(timer);
        this.#events.off('request', check);
        resolve(r);
      };
      this.#events.on('request', check);
    });
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private record(entry: Omit<RecordedRequest, 'seq' | 'at'>): void {
    const r: RecordedRequest = { seq: ++this.#seq, at: Date.now() - this.#started, ...entry };
    this.#requests.push(r);
    if (this.#requests.length > MAX_RECORDED_REQUESTS) this.#requests.shift();
    this.#events.emit('request', r);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const raw = await readBody(req);
    let body: unknown;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        body = raw.toString('utf8');
      }
    }
    const base = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(
        [...url.searchParams].map(([k, v]) => [k, SECRET_PARAMS.has(k) ? '<redacted>' : v]),
      ),
      headers: Object.fromEntries(
        Object.entries(req.headers).map(([k, v]) => [k, SECRET_HEADERS.has(k) ? '<redacted>' : String(v)]),
      ),
      body,
    };
    const json = (body ?? {}) as Record<string, unknown>;
    const path = url.pathname;
    const post = req.method === 'POST';

    const model = async (
      protocol: WireProtocol,
      conv: Conversation,
      answer: (reply: Reply, inputTokens: number) => void,
    ) => {
      const mainLoop = findShellTool(conv.tools) !== undefined;
      const reply: Reply = mainLoop
        ? this.scenario.reply(conv)
        : { kind: 'text', text: this.scenario.sideText(conv) };
      this.record({ ...base, protocol, conversation: conv, mainLoop, reply, status: 200 });
      if (mainLoop && this.latencyMs > 0) await new Promise((r) => setTimeout(r, this.latencyMs));
      answer(reply, roughTokens(body));
    };

    if (post && path.endsWith('/v1/messages/count_tokens')) {
      this.record({ ...base, status: 200 });
      return answerCountTokens(res, body);
    }
    if (post && path.endsWith('/v1/messages')) {
      const conv = parseAnthropic(json);
      return model('anthropic', conv, (reply, n) => answerAnthropic(res, conv, reply, n));
    }
    if (post && path.endsWith('/responses')) {
      const conv = parseResponses(json);
      return model('openai-responses', conv, (reply, n) => answerResponses(res, conv, reply, n));
    }
    if (post && path.endsWith('/chat/completions')) {
      const conv = parseChat(json);
      return model('openai-chat', conv, (reply, n) => answerChat(res, conv, reply, n));
    }
    const gemini = post ? geminiRoute(path) : undefined;
    if (gemini !== undefined && gemini.method === 'countTokens') {
      this.record({ ...base, status: 200 });
      return answerGeminiCountTokens(res, body);
    }
    if (
      gemini !== undefined &&
      (gemini.method === 'streamGenerateContent' || gemini.method === 'generateContent')
    ) {
      const conv = parseGemini(json, gemini.model, gemini.method === 'streamGenerateContent');
      const schema = geminiWantsJson(json);
      if (schema !== undefined && findShellTool(conv.tools) === undefined) {
        // Structured side calls must get JSON that fits their schema, or Gemini CLI logs an error and retries.
        const reply: Reply = { kind: 'json', json: jsonForSchema(schema) };
        this.record({ ...base, protocol: 'gemini', conversation: conv, mainLoop: false, reply, status: 200 });
        return answerGemini(res, conv, reply, roughTokens(body));
      }
      return model('gemini', conv, (reply, n) => answerGemini(res, conv, reply, n));
    }
    if (req.method === 'GET' && path.endsWith('/v1/models')) {
      this.record({ ...base, status: 200 });
      return answerOpenAiModels(res, this.modelName);
    }
    this.record({ ...base, status: 404 });
    sendJson(res, 404, {
      error: { type: 'not_found_error', message: `the fake model API does not serve ${req.method} ${path}` },
    });
  }
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) {
        req.destroy(new Error(`request body over ${MAX_BODY_BYTES} bytes`));
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/**
 * The smallest JSON value a (Gemini-style or JSON Schema) schema accepts: required properties filled, enums
 * take their first value. Enough for side calls that only need a well-formed answer.
 */
export function jsonForSchema(schema: unknown): unknown {
  const s = (schema ?? {}) as {
    type?: string;
    enum?: unknown[];
    properties?: Record<string, unknown>;
    required?: string[];
    items?: unknown;
  };
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  switch (String(s.type ?? 'object').toLowerCase()) {
    case 'string':
      return 'user';
    case 'number':
    case 'integer':
      return 0;
    case 'boolean':
      return false;
    case 'array':
      return [];
    default: {
      const out: Record<string, unknown> = {};
      for (const key of s.required ?? Object.keys(s.properties ?? {}))
        out[key] = jsonForSchema(s.properties?.[key]);
      return out;
    }
  }
}
