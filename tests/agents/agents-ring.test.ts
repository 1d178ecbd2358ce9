/**
 * Issue 23, "Done when": the four pinned agent CLIs (agent-clis.ts; installed into a cache outside the clone,
 * never the workspace's dependencies) in real Burrow sessions — a real `burrow daemon`, a real relay under
 * `wrangler dev`, Pocket's own client core as the phone — against the local fake model API, each in its
 * DEFAULT notification configuration, with nobody looking:
 *
 * - a ring within 1 s of the permission prompt showing on the phone's screen (within the settle time, plus a
 *   second, where the agent writes nothing), whose detail names the request (`touch approved.txt`);
 * - the answer, typed through the phone core, clears it;
 * - the turn's end rings, once;
 * - then the phone is present and types every 10 s for 3 minutes, and in the middle the agent asks again (at
 *   ~70 s: past the 60 s window a phone that only reported changes was lapsed at): nothing rings, the session
 *   stays engaged throughout (so the agent never hears focus-out).
 *
 * The four run side by side (concurrent tests: one relay, one daemon each, so each agent has its own HOME and
 * config, and one agent's phone being present never stands in for another's "nobody looking"); the daemons
 * start while the relay does. The file's wall time is the slowest agent's, and at least the
 * issue's 3 minutes of presence. Each run's timings land in test-artifacts/agents/ring-<agent>.json (the
 * report's per-agent table).
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BurrowConnection } from '@burrow/pocket/core';
import type { SessionEntry } from '@burrow/protocol';
import xtermHeadless from '@xterm/headless';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { SETTLE_MS } from '../../burrow-agent/src/attention/timing.js';
import { REPO_ROOT, type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { BurrowDaemon } from '../helpers/burrow-daemon.js';
import { phoneConnection } from '../helpers/phone-connection.js';
import { AGENT_NAMES, type AgentName } from './agent-clis.js';
import { APPROVAL_PROMPT, MODEL_LATENCY_MS } from './approval-run.js';
import { APPROVAL_COMMAND, APPROVAL_DONE_TEXT, approvalScenario } from './fake-model/scenario.js';
import { FakeModelServer } from './fake-model/server.js';
import { agentCacheRoot, ensureAgentClis, INSTALL_TIMEOUT_MS } from './install-agents.js';
import { type AgentLaunch, LAUNCHERS, writeLaunchFiles } from './launch/index.js';

const { Terminal } = xtermHeadless;

/** The phone's screen: wide enough for every agent's prompt box. */
const COLS = 120;
const ROWS = 40;
const START_MS = 120_000;
const STEP_MS = 60_000;
/**
 * Where the agent writes nothing at its prompt, the ring is WATCHING's settle after the session's last output:
 * allow that, plus 1 s of timer lateness (the daemon's own timestamps are checked against it).
 */
const QUIET_RING_MS = SETTLE_MS + 1_000;
/**
 * A quiet ring, seen from the phone, may come later than QUIET_RING_MS after the prompt showed: the agent may
 * write a little after its prompt (which starts the settle again), later still on a loaded machine (Claude Code:
 * 6.1 and 6.8 s in two full runs of 4 Dec 2026). Burrow's own part is held to QUIET_RING_MS on the daemon's
 * timestamps.
 */
const QUIET_RING_SEEN_MS = SETTLE_MS + 3_000;
const EXPLICIT_RING_MS = 1_000;
/** The presence run: typing every 10 s for 3 minutes (the numbers), asking again at ~70 s. */
const TYPE_EVERY_MS = 10_000;
const PRESENT_FOR_MS = 180_000;
const ASK_AGAIN_AT_MS = 70_000;
const TEST_MS = START_MS + 4 * STEP_MS + PRESENT_FOR_MS + 60_000;
const POLL_MS = 25;
/** How long a typed line may take to show on the phone's screen, and how often a person types it before giving up. */
const TYPED_SHOWS_MS = 5_000;
const TYPE_ATTEMPTS = 2;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(cond: () => boolean, what: string, ms: number): Promise<number> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await sleep(POLL_MS);
  }
  return Date.now();
}

/** One agent in one Burrow session, seen and typed into through the phone core. */
class AgentOnPhone {
  readonly #screen = new Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true, scrollback: 0 });
  /** Every state the phone saw the session in, with when. */
  readonly entries: Array<{ at: number; entry: SessionEntry }> = [];
  /** What the agent's input line showed each time a typed line had to be typed again. */
  readonly retypes: string[] = [];
  #term: ReturnType<BurrowConnection['attach']> | null = null;

  constructor(
    readonly agent: AgentName,
    readonly launch: AgentLaunch,
    readonly daemon: BurrowDaemon,
    readonly phone: BurrowConnection,
    readonly sessionId: string,
  ) {
    phone.subscribe((e) => {
      if (e.type !== 'directory') return;
      const entry = e.directory.get(sessionId);
      const last = this.entries.at(-1)?.entry;
      if (entry !== undefined && entry !== last) this.entries.push({ at: Date.now(), entry });
    });
  }

  get entry(): SessionEntry | undefined {
    return this.entries.at(-1)?.entry;
  }

  attach(): void {
    this.#term = this.phone.attach(
      this.sessionId,
      { cols: COLS, rows: ROWS },
      {
        onSnapshot: (s) => {
          this.#screen.reset();
          this.#screen.resize(s.cols, s.rows);
          this.#screen.write(s.data);
        },
        onOutput: (d) => this.#screen.write(d),
      },
    );
  }

  screen(): string {
    const b = this.#screen.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < this.#screen.rows; y++)
      lines.push(b.getLine(b.viewportY + y)?.translateToString(true) ?? '');
    return lines.join('\n');
  }

  /**
   * Types like a person on the phone: a key at a time, a look at the agent's input line, then Enter. A person
   * who sees keys missing rubs the line out and types it again (at most TYPE_ATTEMPTS times, each noted in
   * `retypes`): Gemini CLI once took "Please create approved.txt" as "Please create approved." in CI and
   * answered the wrong request (not seen again here in 50 runs of the line straight into its PTY and 15 through
   * Burrow; Burrow's own input path is held lossless by its input tests, so this only keeps a ring test from
   * failing on an agent's dropped keys). The next time it sent "Please crea" although the whole line had
   * shown: Enter came while it was still initializing and queued the line, which launch/gemini.ts's ready
   * screen now waits out.
   */
  async typeLine(text: string): Promise<void> {
    const before = this.#linesWith(text);
    for (let attempt = 1; ; attempt++) {
      for (const ch of text) {
        this.#term!.input(ch);
        await sleep(15);
      }
      try {
        await until(
          () => this.#linesWith(text) > before,
          `${this.agent} to show the typed line`,
          TYPED_SHOWS_MS,
        );
        break;
      } catch (err) {
        const shown =
          this.screen()
            .split('\n')
            .find((l) => l.includes(text.slice(0, 8)))
            ?.trim() ?? '';
        if (attempt === TYPE_ATTEMPTS)
          throw new Error(`${(err as Error).message}; the line shows ${JSON.stringify(shown)}`);
        this.retypes.push(shown);
        console.log(
          `[figure] ${this.agent}: typed ${JSON.stringify(text)}, the line showed ${JSON.stringify(shown)}: typed again`,
        );
        for (let k = 0; k < text.length + 5; k++) {
          this.#term!.input('\x7f');
          await sleep(15);
        }
        await sleep(500);
      }
    }
    await sleep(300);
    this.#term!.input('\r');
  }

  /** Screen lines holding `text`. */
  #linesWith(text: string): number {
    return this.screen()
      .split('\n')
      .filter((l) => l.includes(text)).length;
  }

  input(data: string): void {
    this.#term!.input(data);
  }

  /** `until`, and on a timeout what the phone saw: its screen and the session's last states. */
  async step(cond: () => boolean, what: string, ms: number): Promise<number> {
    try {
      return await until(cond, `${this.agent}: ${what}`, ms);
    } catch (err) {
      const seen = this.entries
        .slice(-6)
        .map(
          (e) =>
            `${e.at}: ${e.entry.status} ringing=${e.entry.ringing} ${JSON.stringify(e.entry.notification)}`,
        );
      throw new Error(
        `${(err as Error).message}\n--- screen ---\n${this.screen()}\n--- states ---\n${seen.join('\n')}`,
      );
    }
  }

  /** Episodes that rang at or after `from`. */
  episodesSince(from: number): string[] {
    const ids = this.entries
      .filter((e) => e.at >= from && e.entry.episodeId !== null)
      .map((e) => e.entry.episodeId!);
    return [...new Set(ids)];
  }
}

interface RingReport {
  agent: AgentName;
  promptShownMs: number;
  ringAfterPromptMs: number;
  /** The daemon's own: ring time minus the session's last output (quiet rings only). */
  ringAfterLastOutputMs: number | null;
  ringSource: string;
  ringTitle: string;
  ringBody: string;
  turnEndRingAfterDoneMs: number;
  turnEndTitle: string;
  turnEndBody: string;
  turnEndEpisodes: number;
  presentRings: number;
  /** The input line each time the request had to be typed again (normally none). */
  retypes: string[];
}

/** The relay, starting (wrangler dev: seconds) while each test starts its daemon. */
let relay: Promise<RelayHandle>;
const cleanups: Array<() => Promise<void> | void> = [];

beforeAll(async () => {
  await ensureAgentClis();
  relay = startRelay();
  relay.catch(() => undefined); // each test awaits it and fails with its error
}, INSTALL_TIMEOUT_MS);

afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await (await relay.catch(() => undefined))?.stop();
});

/** The agent's session in its own daemon (its own HOME and config, as launched), with a paired phone. */
async function start(agent: AgentName): Promise<AgentOnPhone> {
  const { bins } = await ensureAgentClis();
  const api = await FakeModelServer.start(approvalScenario(), { latencyMs: MODEL_LATENCY_MS });
  cleanups.push(() => api.close());
  const homes = join(agentCacheRoot(), 'homes');
  mkdirSync(homes, { recursive: true });
  const home = mkdtempSync(join(homes, `ring-${agent}-`));
  const workDir = realpathSync(mkdtempSync(join(tmpdir(), `burrow-ring-${agent}-`)));
  cleanups.push(() => {
    rmSync(home, { recursive: true, force: true });
    rmSync(workDir, { recursive: true, force: true });
  });
  const launch = LAUNCHERS[agent]({ bin: bins[agent], apiUrl: api.url, model: api.modelName, workDir, home });
  writeLaunchFiles(launch);
  // The daemon carries the agent's environment, as a daemon started in that person's login would.
  const daemon = await BurrowDaemon.start({ env: { ...launch.env } });
  cleanups.push(async () => {
    await daemon.stop();
  });
  await daemon.enroll((await relay).url);
  const paired = await daemon.pairPhone(`phone-${agent}`);
  const phone = phoneConnection(paired, { cols: COLS, rows: ROWS });
  cleanups.push(() => phone.stop());
  phone.start();
  await until(() => phone.status.kind === 'connected', `${agent}: the phone to connect`, STEP_MS);
  // The agent starts only now, with the phone there to attach at once: started before (at the daemon's default
  // size, resized to the phone's after its first frame), Codex took the typed request but not its Enter, in
  // two runs of two.
  const made = await daemon.cli('new', '--name', agent, '--cwd', launch.cwd, '--', ...launch.argv);
  if (made.code !== 0) throw new Error(`${agent}: burrow new exited ${made.code}: ${made.stderr}`);
  const on = new AgentOnPhone(agent, launch, daemon, phone, made.stdout.trim());
  on.attach();
  return on;
}

function save(report: RingReport): void {
  const dir = join(REPO_ROOT, 'test-artifacts', 'agents');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `ring-${report.agent}.json`), `${JSON.stringify(report, null, 2)}\n`);
  console.log(
    `${report.agent}: ring ${report.ringAfterPromptMs} ms after the prompt showed (${report.ringSource}: ` +
      `${report.ringTitle} — ${report.ringBody}); turn end ${report.turnEndRingAfterDoneMs} ms after its last ` +
      `words (${report.turnEndTitle} — ${report.turnEndBody})`,
  );
}

describe.concurrent('issue 23: the real agent CLIs in Burrow, default config, nobody looking', () => {
  it.for(AGENT_NAMES)(
    '%s: rings at its prompt naming the request, the phone’s answer clears it, the turn end rings once, and a phone in use is never rung',
    { timeout: TEST_MS },
    // The test's own expect: the four run concurrently, and each failure is its agent's.
    async (agent, { expect }) => {
      const on = await start(agent);
      const { launch } = on;
      await on.step(() => launch.readyScreen.test(on.screen()), `${agent}'s input prompt`, START_MS);
      await sleep(1_000);
      const typed = Date.now();
      await on.typeLine(APPROVAL_PROMPT);

      // The prompt: a ring within 1 s of it showing (or the settle, where the agent writes nothing).
      const shown = await on.step(
        () => launch.permissionScreen.test(on.screen()),
        `${agent}'s prompt`,
        STEP_MS,
      );
      const rang = await on.step(
        () => on.entry?.ringing === true,
        `${agent}'s prompt ring`,
        QUIET_RING_MS + 5_000,
      );
      const ring = on.entry!;
      const ringAfter = rang - shown;
      const quiet = ring.notification?.source === 'watching';
      expect(ringAfter, `${agent} rang ${ringAfter} ms after its prompt showed`).toBeLessThanOrEqual(
        (quiet ? QUIET_RING_SEEN_MS : EXPLICIT_RING_MS) + 2 * POLL_MS,
      );
      // The daemon's own settle: its ring time against the session's last output (quiet rings only).
      const settle = quiet ? (ring.ringingSince ?? 0) - ring.lastActivityAt : null;
      if (settle !== null) {
        expect(settle, `${agent} rang ${settle} ms after its last output`).toBeLessThanOrEqual(QUIET_RING_MS);
      }
      // Its detail names the request (the screen's words arrive just after a ring without words of its own).
      await on.step(
        () => (on.entry?.notification?.body ?? '').includes(APPROVAL_COMMAND.split(' ')[1]!),
        `${agent}'s ring to name the request`,
        5_000,
      );
      const worded = on.entry!.notification!;

      // The answer, typed through the phone core, clears it.
      on.input(launch.allowKeys);
      await on.step(
        () => on.entry?.ringing === false && on.entry.todo === false,
        'the answer to clear it',
        5_000,
      );
      const answered = Date.now();

      // The turn's end rings, once.
      const done = await on.step(
        () => on.screen().includes(APPROVAL_DONE_TEXT),
        `${agent}'s turn end`,
        STEP_MS,
      );
      const endRang = await on.step(
        () => on.entry?.ringing === true,
        `${agent}'s turn-end ring`,
        QUIET_RING_MS + 5_000,
      );
      await on.step(() => (on.entry?.notification?.body ?? '') !== '', 'its words', 5_000);
      const end = on.entry!.notification!;
      await sleep(SETTLE_MS + 3_000);
      const turnEndEpisodes = on.episodesSince(answered).length;
      expect(turnEndEpisodes, 'one ring for the turn end').toBe(1);

      // A phone in use: present, looking, typing every 10 s for 3 minutes; the agent asks again past 60 s.
      on.phone.presence('present', { focused: true, visible: true });
      on.phone.focus(on.sessionId);
      on.phone.acknowledge(on.sessionId, false); // the owner opened the ring
      await on.step(() => on.entry?.ringing === false, 'the look to take the ring', 5_000);
      const presentFrom = Date.now();
      let asked = false;
      // Keys every 10 s by the clock (the checks' CLI calls and the second prompt take time inside the 10 s,
      // not on top of them): 3 minutes of presence are 3 minutes.
      for (let t = 0; t < PRESENT_FOR_MS; t += TYPE_EVERY_MS) {
        await sleep(presentFrom + t - Date.now());
        if (!asked && t >= ASK_AGAIN_AT_MS) {
          asked = true;
          await on.typeLine(APPROVAL_PROMPT);
          await on.step(() => launch.permissionScreen.test(on.screen()), `${agent}'s second prompt`, STEP_MS);
        } else {
          on.input('x');
          await sleep(200);
          on.input('\x7f'); // and rubs it out: the agent's input box is left as it was
        }
        await sleep(presentFrom + t + TYPE_EVERY_MS - Date.now());
        const at = `${Math.round((Date.now() - presentFrom) / 1000)} s in`;
        expect(on.entry?.ringing, `no ring while the phone is in use (${at})`).toBe(false);
        // Engaged all along: the daemon never lapsed the phone, so the agent never heard focus-out.
        const listed = (await on.daemon.json<Array<{ id: string; engaged?: boolean }>>('ls', '--json')).find(
          (r) => r.id === on.sessionId,
        );
        expect(listed?.engaged, `engaged (${at})`).toBe(true);
      }
      const presentRings = on.episodesSince(presentFrom).length;
      expect(presentRings, 'nothing rang while the phone was in use').toBe(0);

      save({
        agent,
        promptShownMs: shown - typed,
        ringAfterPromptMs: ringAfter,
        ringAfterLastOutputMs: settle,
        ringSource: ring.notification?.source ?? '',
        ringTitle: worded.title,
        ringBody: worded.body,
        turnEndRingAfterDoneMs: endRang - done,
        turnEndTitle: end.title,
        turnEndBody: end.body,
        turnEndEpisodes,
        presentRings,
        retypes: on.retypes,
      });
    },
  );
});
