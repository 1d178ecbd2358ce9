/**
 * Issue 27's "Done when" for agent recovery, for one agent: the real CLI in a real Burrow session (a real
 * daemon, `burrow new -- env VAR=… <agent>` with the launch config's environment, as a person who sets those
 * variables for one command would), one message and its answer, the daemon stopped and started again, the
 * session listed as resumable with the conversation Burrow read from the agent's own store, `burrow resume`,
 * and a second message whose model request — recorded by the fake model API — carries the first turn and its
 * answer. Also: the resumed session says which conversation — its first output line, `burrow ls`, and the
 * line `burrow attach` leaves above the agent's screen in a real terminal — and the id Burrow captured is the
 * one the agent sent the model (where the agent sends one).
 *
 *   npx tsx tests/agents/recovery-run.ts claude     # one agent by hand, report as JSON
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BurrowDaemon } from '../helpers/burrow-daemon.js';
import { AGENT_NAMES, type AgentName } from './agent-clis.js';
import { processesWithHome } from './agent-terminal.js';
import { AttachTerminal } from './attach-terminal.js';
import { BurrowViewer } from './burrow-viewer.js';
import { userTexts } from './fake-model/conversation.js';
import { approvalScenario } from './fake-model/scenario.js';
import { FakeModelServer, type RecordedRequest } from './fake-model/server.js';
import { agentCacheRoot, ensureAgentClis } from './install-agents.js';
import { type AgentLaunch, LAUNCHERS, writeLaunchFiles } from './launch/index.js';

export const START_TIMEOUT_MS = 90_000;
export const STEP_TIMEOUT_MS = 60_000;
/** After a resumed agent shows the earlier conversation, before typing into it. */
const RESUME_SETTLE_MS = 3_000;
/** The resumed session's viewers: the test's own and `burrow attach`'s terminal, the same size. */
const VIEWER_SIZE = { cols: 120, rows: 40 };
/** The fake model's thinking time per answer. */
const MODEL_LATENCY_MS = 300;
const FIRST = 'first message';
const SECOND = 'second message';

/** Where each agent sends its conversation id to the model (Gemini CLI sends none). */
const ID_HEADERS: Readonly<Partial<Record<AgentName, string>>> = {
  claude: 'x-claude-code-session-id',
  codex: 'session-id',
  opencode: 'x-session-id',
};

interface ListedRow {
  readonly id: string;
  readonly name: string;
  readonly state: string;
  readonly resumable: boolean;
  readonly diedWithDaemon?: boolean;
  readonly recovery: { readonly agent: string; readonly conversation: string } | null;
  /** On the resumed session: the conversation it resumed. */
  readonly resumed?: { readonly agent: string; readonly conversation: string };
  readonly argv: readonly string[];
}

export interface RecoveryReport {
  readonly agent: AgentName;
  /** ms from `burrow new` to the agent's input prompt, then to the first answer. */
  readonly firstReadyMs: number;
  readonly firstAnswerMs: number;
  /** What `burrow ls --json` said while it ran, and after the restart. */
  readonly whileRunning: ListedRow;
  readonly afterRestart: ListedRow;
  /** The conversation id the agent sent the model in its first turn (null: it sends none). */
  readonly idSentToModel: string | null;
  /** `burrow resume` → the agent's input prompt, then → the answer to the second message. */
  readonly resumeReadyMs: number;
  readonly secondAnswerMs: number;
  /** The session's first output line after the resume. */
  readonly firstLine: string;
  /** What `burrow ls --json` and `burrow ls` said of the resumed session (its row of the table). */
  readonly whileResumed: ListedRow;
  readonly lsRow: string;
  /**
   * `burrow attach` after the resume, in a real PTY drawn by xterm.js: the first line the person's terminal
   * holds (the attach line, above the agent's screen), and the agent's screen under it.
   */
  readonly attach: { readonly firstLine: string; readonly screen: string; readonly exitCode: number };
  /** The user messages and the answers the resumed conversation's request carried, in order. */
  readonly resumedTurns: readonly { role: string; text: string }[];
  /** Agent processes left with this HOME after each daemon stop (should be none). */
  readonly leftAfterStop: number;
  readonly screens: { readonly first: string; readonly resumed: string };
}

const delay = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(
  get: () => Promise<T | undefined> | T | undefined,
  what: string,
  ms: number,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await delay(200);
  }
}

/** Ends the processes a stopped daemon's sessions left behind with this HOME; how many there were. */
function sweep(home: string): number {
  const left = processesWithHome(home);
  for (const pid of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
  return left.length;
}

/** One agent's part of a run: its fake model, HOME, directory and launch, and what its first turn left. */
interface AgentRun {
  readonly agent: AgentName;
  readonly api: FakeModelServer;
  readonly home: string;
  readonly workDir: string;
  readonly launch: AgentLaunch;
}

interface FirstTurn {
  readonly firstReadyMs: number;
  readonly firstAnswerMs: number;
  readonly firstScreen: string;
  readonly idSentToModel: string | null;
  readonly whileRunning: ListedRow;
}

type Settled<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: Error };

async function settle<T>(p: Promise<T>): Promise<Settled<T>> {
  try {
    return { ok: true, value: await p };
  } catch (error) {
    return { ok: false, error: error as Error };
  }
}

/** `burrow new` with the agent's settings as `env VAR=…` (HOME too: each agent has its own), one message. */
async function firstTurn(daemon: BurrowDaemon, run: AgentRun, viewers: BurrowViewer[]): Promise<FirstTurn> {
  const { agent, api, launch } = run;
  const assignments = Object.entries(launch.env)
    .filter(([k, v]) => daemon.env[k] !== v && k !== 'TERM' && k !== 'COLORTERM')
    .map(([k, v]) => `${k}=${v}`);
  const t0 = Date.now();
  const created = await daemon.cli(
    'new',
    '--name',
    agent,
    '--cwd',
    run.workDir,
    '--',
    'env',
    ...assignments,
    ...launch.argv,
  );
  if (created.code !== 0) throw new Error(`burrow new exited ${created.code}: ${created.stderr}`);
  const first = await BurrowViewer.attach(daemon.env, agent);
  viewers.push(first);
  await first.waitForScreen(launch.readyScreen, `${agent}'s input prompt`, START_TIMEOUT_MS);
  const firstReadyMs = Date.now() - t0;
  await delay(1_000); // some agents take keys only a moment after their first frame
  await first.typeLine(FIRST);
  await first.waitForScreen(/Reply 1: first message/, `${agent}'s first answer`, STEP_TIMEOUT_MS);
  const firstAnswerMs = Date.now() - t0;
  const firstScreen = first.screen();
  const firstRequest = api.requests.find(
    (r) => r.mainLoop === true && userTexts(r.conversation!).includes(FIRST),
  );
  const header = ID_HEADERS[agent];
  const idSentToModel = header === undefined ? null : (firstRequest?.headers[header] ?? null);
  // While it runs, Burrow already knows the conversation (a capture every few seconds).
  const whileRunning = await until(
    async () => {
      const rows = await daemon.json<ListedRow[]>('ls', '--json');
      const row = rows.find((r) => r.name === agent);
      return row?.recovery != null ? row : undefined;
    },
    `burrow ls to show ${agent}'s conversation`,
    STEP_TIMEOUT_MS,
  );
  first.close();
  return { firstReadyMs, firstAnswerMs, firstScreen, idSentToModel, whileRunning };
}

/** After the restart: `burrow resume`, the earlier conversation on screen, a second message. */
async function secondTurn(
  daemon: BurrowDaemon,
  run: AgentRun,
  first: FirstTurn,
  leftAfterStop: number,
  viewers: BurrowViewer[],
): Promise<RecoveryReport> {
  const { agent, api } = run;
  const afterRestart = (await daemon.json<ListedRow[]>('ls', '--json')).find((r) => r.name === agent);
  if (afterRestart === undefined) throw new Error(`${agent}: the session is not listed after the restart`);
  const t1 = Date.now();
  const resumed = await daemon.cli('resume', agent);
  if (resumed.code !== 0) throw new Error(`burrow resume ${agent} exited ${resumed.code}: ${resumed.stderr}`);
  const second = await BurrowViewer.attach(daemon.env, agent, { ...VIEWER_SIZE, fromStart: true });
  viewers.push(second);
  // A resumed agent shows the earlier conversation (its empty-prompt placeholder is gone: opencode, Codex).
  await second.waitForScreen(
    /Reply 1: first message/,
    `${agent} to show the earlier conversation`,
    START_TIMEOUT_MS,
  );
  const resumeReadyMs = Date.now() - t1;
  // Keys typed while it still loads are lost (Codex) or land before its input box exists (opencode).
  await delay(RESUME_SETTLE_MS);
  const before = api.requests.length;
  await second.typeLine(SECOND);
  const request = await until<RecordedRequest>(
    () =>
      api.requests
        .slice(before)
        .find((r) => r.mainLoop === true && userTexts(r.conversation!).includes(SECOND)),
    `${agent}'s request for the second message`,
    STEP_TIMEOUT_MS,
  ).catch((err: Error) => {
    const seen = api.requests.slice(before).map((r) => `${r.method} ${r.path} main=${r.mainLoop}`);
    throw new Error(
      `${err.message}; requests since: ${seen.join(', ') || 'none'}; screen:\n${second.screen()}`,
    );
  });
  await second.waitForScreen(/Reply \d+: second message/, `${agent}'s second answer`, STEP_TIMEOUT_MS);
  const secondAnswerMs = Date.now() - t1;
  // Which conversation this is, where a person looks: `burrow ls`, and `burrow attach` (the size the viewer
  // above has, so the agent is not resized under it).
  const whileResumed = (await daemon.json<ListedRow[]>('ls', '--json')).find((r) => r.name === agent)!;
  const table = await daemon.cli('ls');
  const lsRow = table.stdout.split('\n').find((l) => l.split(/\s+/)[1] === agent) ?? table.stdout;
  const attached = await AttachTerminal.open(daemon.env, agent, VIEWER_SIZE);
  await until(
    async () => ((await attached.screen()).includes('Reply 1: first message') ? true : undefined),
    `burrow attach to show ${agent}'s conversation`,
    STEP_TIMEOUT_MS,
  );
  const attach = {
    firstLine: await attached.firstLine(),
    screen: await attached.screen(),
    exitCode: await attached.detach(),
  };
  const resumedTurns = request
    .conversation!.turns.filter((t) => t.role !== 'tool')
    .map((t) => ({ role: t.role, text: 'text' in t ? t.text : '' }))
    // Gemini CLI's own context message is not the person's words (tests/agents/README.md).
    .filter((t) => !t.text.startsWith('<session_context>'));
  const report: RecoveryReport = {
    agent,
    firstReadyMs: first.firstReadyMs,
    firstAnswerMs: first.firstAnswerMs,
    whileRunning: first.whileRunning,
    afterRestart,
    idSentToModel: first.idSentToModel,
    resumeReadyMs,
    secondAnswerMs,
    firstLine: second.raw.split(/\r?\n/)[0] ?? '',
    whileResumed,
    lsRow,
    attach,
    resumedTurns,
    leftAfterStop,
    screens: { first: first.firstScreen, resumed: second.screen() },
  };
  second.close();
  await daemon.cli('kill', agent);
  return report;
}

/**
 * The agents' recoveries through one daemon, side by side (each its own fake model, HOME and directory): every
 * first turn, one stop and start of the daemon, every resume and second turn. Each agent's outcome separately:
 * one that fails does not hide how the others did. A daemon that is shared also shows several resumable
 * sessions in one roster come back, each on its own conversation.
 */
export async function runRecoveries(
  agents: readonly AgentName[],
): Promise<Record<string, Settled<RecoveryReport>>> {
  const { bins } = await ensureAgentClis();
  const homes = join(agentCacheRoot(), 'homes');
  mkdirSync(homes, { recursive: true });
  const runs: AgentRun[] = [];
  const viewers: BurrowViewer[] = [];
  // The daemon runs as the owner would run it, with a HOME of its own; each agent's settings go with its
  // command, as `env VAR=…`.
  const daemonHome = mkdtempSync(join(homes, 'recovery-daemon-'));
  let daemon: BurrowDaemon | null = null;
  try {
    for (const agent of agents) {
      const api = await FakeModelServer.start(approvalScenario(), { latencyMs: MODEL_LATENCY_MS });
      const home = mkdtempSync(join(homes, `recovery-${agent}-`));
      const workDir = realpathSync(mkdtempSync(join(tmpdir(), `burrow-recovery-${agent}-`)));
      runs.push({
        agent,
        api,
        home,
        workDir,
        launch: LAUNCHERS[agent]({ bin: bins[agent], apiUrl: api.url, model: api.modelName, workDir, home }),
      });
    }
    for (const r of runs) writeLaunchFiles(r.launch);
    const daemonEnv = { HOME: daemonHome, PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' };
    daemon = await BurrowDaemon.start({ env: daemonEnv });
    const stateDir = daemon.stateDir;
    const d1 = daemon;
    const firsts = await Promise.all(runs.map((r) => settle(firstTurn(d1, r, viewers))));
    for (const v of viewers.splice(0)) v.close();

    // The daemon goes (an upgrade, a reboot): the agents die with it (their helpers a moment later: the hang-up
    // of a terminal reaches them when its PTY closes).
    await daemon.stop();
    const left = () => runs.reduce((n, r) => n + processesWithHome(r.home).length, 0);
    await until(() => (left() === 0 ? true : undefined), 'the agents to end', 5_000).catch(() => undefined);
    const leftAfterStop = new Map(runs.map((r) => [r.agent, sweep(r.home)]));
    daemon = await BurrowDaemon.start({ env: daemonEnv, stateDir });
    const d2 = daemon;
    const outcomes = await Promise.all(
      runs.map((r, i) => {
        const f = firsts[i]!;
        if (!f.ok) return f;
        return settle(secondTurn(d2, r, f.value, leftAfterStop.get(r.agent) ?? 0, viewers));
      }),
    );
    return Object.fromEntries(runs.map((r, i) => [r.agent, outcomes[i]!]));
  } finally {
    for (const v of viewers) v.close();
    await daemon?.stop();
    for (const r of runs) {
      sweep(r.home);
      await r.api.close();
      rmSync(r.home, { recursive: true, force: true });
      rmSync(r.workDir, { recursive: true, force: true });
    }
    rmSync(daemonHome, { recursive: true, force: true });
  }
}

/** One agent's recovery (its own daemon). */
export async function runRecovery(agent: AgentName): Promise<RecoveryReport> {
  const outcome = (await runRecoveries([agent]))[agent]!;
  if (!outcome.ok) throw outcome.error;
  return outcome.value;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const agent = process.argv[2] as AgentName;
  if (!AGENT_NAMES.includes(agent)) {
    console.error(`usage: recovery-run.ts <${AGENT_NAMES.join('|')}>`);
    process.exit(2);
  }
  console.log(JSON.stringify(await runRecovery(agent), null, 2));
}
