/**
 * The approval scenario, run once for one agent: start it in a PTY against a fresh fake model API, wait until
 * it is ready, tell the terminal it is not looked at (focus out, when the agent asked for focus reports), ask
 * it to create approved.txt, wait for its permission prompt on the rendered screen, allow once, wait for the
 * turn to end — and report when each step happened and what the agent wrote to its terminal in each phase.
 *
 * Used by the smoke test, and by hand to look at an agent:
 *
 *   npx tsx tests/agents/approval-run.ts codex [--notify] [--answer-queries]
 */
import { existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENT_NAMES, type AgentName } from './agent-clis.js';
import { AgentTerminal } from './agent-terminal.js';
import { APPROVAL_DONE_TEXT, approvalScenario } from './fake-model/scenario.js';
import { FakeModelServer, type RecordedRequest } from './fake-model/server.js';
import { agentCacheRoot, ensureAgentClis } from './install-agents.js';
import { LAUNCHERS, writeLaunchFiles } from './launch/index.js';
import { between, isAlert, type SignalSummary, summarize } from './terminal-signals.js';

/** What the user types: mentions the trigger word, so the scenario answers with the shell tool call. */
export const APPROVAL_PROMPT = 'Please create approved.txt';
/** How long after the permission prompt appears its signals are still counted as the prompt's (Claude Code's OSC 9 comes ~6 s after it). */
export const PROMPT_SETTLE_MS = 8_000;
/** How long after the turn's end its signals are counted as the turn end's (Codex and Gemini CLI: < 0.3 s). */
export const TURN_END_SETTLE_MS = 3_000;
/** Budget for an agent to start (opencode's first start migrates its database: ~25 s on a loaded machine). */
export const START_TIMEOUT_MS = 90_000;
export const STEP_TIMEOUT_MS = 60_000;
const FOCUS_IN = '\x1b[I';
const FOCUS_OUT = '\x1b[O';
/** How long the person stays after typing before the terminal reports focus lost. */
export const VISIT_LINGER_MS = 300;
/** The fake model's thinking time per main-loop answer: the person has left (focus out) before a turn ends. */
export const MODEL_LATENCY_MS = 1_500;
/** After the input prompt first shows: Gemini CLI enables focus reporting a moment after its first frame. */
export const SETTLE_AFTER_READY_MS = 1_000;

export interface ApprovalRunOptions {
  readonly notify?: boolean;
  readonly answerQueries?: boolean;
  /** Keep the agent's HOME and work dir (for a look afterwards). */
  readonly keep?: boolean;
}

export interface PhaseReport extends SignalSummary {
  /**
   * ms from the phase's event (the prompt showing on screen; the final message showing) to the phase's first
   * BEL or non-title OSC — negative when it came before the screen showed it — or null when there was none.
   */
  readonly firstAlertMs: number | null;
}

export interface ApprovalReport {
  readonly agent: AgentName;
  readonly notify: boolean;
  /** ms since spawn. */
  readonly readyMs: number;
  readonly promptMs: number;
  readonly doneMs: number;
  /**
   * Whether the agent enabled focus reporting (DECSET 1004) by the time it was ready. Then the run reports
   * focus out at once, focus in / out around each thing the person types (so the agent sees nobody looking
   * whenever it waits).
   */
  readonly focusReporting: boolean;
  readonly startup: SignalSummary;
  /** From the user's Enter to PROMPT_SETTLE_MS after the permission prompt showed. */
  readonly atPrompt: PhaseReport;
  /** From the answer to TURN_END_SETTLE_MS after the final message showed. */
  readonly turnEnd: PhaseReport;
  /** Every alert the agent wrote, in order: when (ms since spawn) and what (`BEL` or `OSC code;payload`). */
  readonly alerts: readonly { readonly at: number; readonly what: string }[];
  readonly approvedFile: boolean;
  /** The main-loop request that carried the tool's result back to the model. */
  readonly toolResultRequest: RecordedRequest | undefined;
  readonly requests: readonly RecordedRequest[];
  /** Requests the fake answered 404 (what the agent tried that is not a model call): method and path. */
  readonly unexpected: readonly string[];
  /** Errors the fake model API hit while answering (should be none). */
  readonly apiErrors: readonly string[];
  /** Whether the fake API key showed up anywhere in the recorded requests (it must be redacted). */
  readonly keyLeaked: boolean;
  readonly screens: { readonly prompt: string; readonly done: string };
}

/** The signals in [from, to), and the first alert's time relative to `origin` (negative: before it). */
function phase(terminal: AgentTerminal, from: number, to: number, origin: number): PhaseReport {
  const signals = between(terminal.signals(), from, to);
  const alert = signals.find(isAlert);
  return { ...summarize(signals), firstAlertMs: alert === undefined ? null : alert.at - origin };
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runApproval(
  agent: AgentName,
  options: ApprovalRunOptions = {},
): Promise<ApprovalReport> {
  const { bins } = await ensureAgentClis();
  const api = await FakeModelServer.start(approvalScenario(), { latencyMs: MODEL_LATENCY_MS });
  // HOME outside the OS temp dir (Codex refuses its helper aliases under it); the work dir anywhere.
  const homes = join(agentCacheRoot(), 'homes');
  mkdirSync(homes, { recursive: true });
  const home = mkdtempSync(join(homes, `${agent}-`));
  const workDir = realpathSync(mkdtempSync(join(tmpdir(), `burrow-${agent}-work-`)));
  const launch = LAUNCHERS[agent]({
    bin: bins[agent],
    apiUrl: api.url,
    model: api.modelName,
    workDir,
    home,
    notify: options.notify === true,
  });
  writeLaunchFiles(launch);
  const terminal = AgentTerminal.spawn(launch, { answerQueries: options.answerQueries === true });
  try {
    const readyMs = await terminal.waitForScreen(
      launch.readyScreen,
      `${agent}'s input prompt`,
      START_TIMEOUT_MS,
    );
    await delay(SETTLE_AFTER_READY_MS); // some agents enable focus reporting just after their first frame
    const focusReporting = terminal.signals().some((s) => s.kind === 'mode' && s.mode === 1004 && s.set);
    // A person is there only while typing: focus in, type, focus out (what a terminal reports to an agent
    // that asked for focus reports, and what a Burrow viewer arriving and leaving amounts to).
    const visit = async (act: () => Promise<void> | void) => {
      if (focusReporting) terminal.write(FOCUS_IN);
      await act();
      await delay(VISIT_LINGER_MS);
      if (focusReporting) terminal.write(FOCUS_OUT);
    };
    if (focusReporting) terminal.write(FOCUS_OUT);
    const typedAt = terminal.now();
    await visit(() => terminal.typeLine(APPROVAL_PROMPT));
    const promptMs = await terminal.waitForScreen(
      launch.permissionScreen,
      `${agent}'s permission prompt`,
      STEP_TIMEOUT_MS,
    );
    await delay(PROMPT_SETTLE_MS);
    const promptScreen = terminal.screen();
    const answeredAt = terminal.now();
    await visit(() => terminal.write(launch.allowKeys));
    const approved = join(workDir, 'approved.txt');
    const toolResultRequest = await api.waitFor(
      (r) => r.mainLoop === true && r.conversation!.turns.some((t) => t.role === 'tool'),
      `${agent} to send the tool's result to the model`,
      STEP_TIMEOUT_MS,
    );
    const doneMs = await terminal.waitForScreen(
      new RegExp(APPROVAL_DONE_TEXT.replace(/[.]/g, '\\.')),
      `${agent}'s final message`,
      STEP_TIMEOUT_MS,
    );
    await delay(TURN_END_SETTLE_MS);
    return {
      agent,
      notify: options.notify === true,
      readyMs,
      promptMs,
      doneMs,
      focusReporting,
      startup: summarize(between(terminal.signals(), 0, typedAt)),
      atPrompt: phase(terminal, typedAt, answeredAt, promptMs),
      turnEnd: phase(terminal, answeredAt, terminal.now(), doneMs),
      alerts: terminal
        .signals()
        .filter(isAlert)
        .map((a) => ({ at: a.at, what: a.kind === 'osc' ? `OSC ${a.code};${a.payload}` : 'BEL' })),
      approvedFile: existsSync(approved),
      toolResultRequest,
      requests: [...api.requests],
      unexpected: api.unexpected().map((r) => `${r.method} ${r.path}`),
      apiErrors: [...api.errors],
      keyLeaked: JSON.stringify(api.requests).includes(launch.apiKey),
      screens: { prompt: promptScreen, done: terminal.screen() },
    };
  } finally {
    await terminal.kill();
    await api.close();
    if (options.keep !== true) {
      rmSync(home, { recursive: true, force: true });
      rmSync(workDir, { recursive: true, force: true });
    }
  }
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const agent = process.argv[2] as AgentName;
  if (!AGENT_NAMES.includes(agent)) {
    console.error(`usage: approval-run.ts <${AGENT_NAMES.join('|')}> [--notify] [--answer-queries] [--keep]`);
    process.exit(2);
  }
  const report = await runApproval(agent, {
    notify: process.argv.includes('--notify'),
    answerQueries: process.argv.includes('--answer-queries'),
    keep: process.argv.includes('--keep'),
  });
  const { requests, toolResultRequest, ...rest } = report;
  console.log(
    JSON.stringify(
      {
        ...rest,
        requests: requests.map(
          (r) => `${r.at}ms ${r.method} ${r.path} ${r.status}${r.mainLoop ? ' main' : ''}`,
        ),
        toolResult: toolResultRequest?.conversation?.turns.filter((t) => t.role === 'tool'),
      },
      null,
      2,
    ),
  );
}
