/**
 * Issue 27 "Done when" (agent recovery): for each of the four pinned agent CLIs, a conversation in a real Burrow
 * session survives a daemon restart. The body (recovery-run.ts) starts the agent through a real daemon with
 * its launch config's environment, says one thing, stops and starts the daemon, resumes the session, says a
 * second thing; this file asserts the resumed agent had the earlier conversation — its next model request, as
 * the fake model API recorded it, carries the first message and its answer — and that Burrow captured the
 * conversation id the agent itself uses. The four run side by side through one daemon (one stop and start for
 * all: the wall time of the slowest, not the sum), each with its own fake model API, HOME and directory.
 * Reports land in test-artifacts/agents/<agent>-recovery.json.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../relay-worker/test/harness.js';
import { AGENT_NAMES } from './agent-clis.js';
import { ensureAgentClis, INSTALL_TIMEOUT_MS } from './install-agents.js';
import { type RecoveryReport, runRecoveries } from './recovery-run.js';

/** Two starts (≤ 90 s each on a loaded machine) and two turns, the agents side by side; generous. */
const RUN_TIMEOUT_MS = 300_000;

let outcomes: Awaited<ReturnType<typeof runRecoveries>>;
beforeAll(async () => {
  await ensureAgentClis();
  outcomes = await runRecoveries(AGENT_NAMES);
}, INSTALL_TIMEOUT_MS + RUN_TIMEOUT_MS);

/** The agents by the names Burrow shows (burrow-agent/src/recovery/recovery-record.ts). */
const AGENT_TITLES: Readonly<Record<string, string>> = {
  claude: 'Claude Code',
  codex: 'Codex',
  gemini: 'Gemini CLI',
  opencode: 'opencode',
};

function save(report: RecoveryReport): void {
  const dir = join(REPO_ROOT, 'test-artifacts', 'agents');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${report.agent}-recovery.json`), `${JSON.stringify(report, null, 2)}\n`);
  console.log(
    `${report.agent} recovery: ready ${report.firstReadyMs} ms, answered ${report.firstAnswerMs} ms; ` +
      `resumed ready ${report.resumeReadyMs} ms, answered ${report.secondAnswerMs} ms`,
  );
}

describe.each(AGENT_NAMES)('%s', (agent) => {
  it('comes back on the same conversation after a daemon restart: `burrow resume` in the same directory, same name', () => {
    const outcome = outcomes[agent]!;
    if (!outcome.ok) throw outcome.error;
    const report = outcome.value;
    save(report);
    const conversation = report.whileRunning.recovery!.conversation;
    expect(report.whileRunning).toMatchObject({ state: 'running', resumable: false, recovery: { agent } });
    // The id Burrow read from the agent's store is the one the agent itself sends its model.
    if (report.idSentToModel !== null) expect(conversation).toBe(report.idSentToModel);
    expect(report.afterRestart).toMatchObject({
      state: 'exited',
      diedWithDaemon: true,
      resumable: true,
      recovery: { agent, conversation },
    });
    expect(report.leftAfterStop, 'agent processes left after the daemon stopped').toBe(0);
    // The resumed session says first which conversation it is (in its output: the agent may clear it)…
    expect(report.firstLine).toContain(`resuming`);
    expect(report.firstLine).toContain(conversation);
    // …and where a person looks, whatever the agent does to its screen: `burrow ls`,
    expect(report.whileResumed).toMatchObject({ state: 'running', resumed: { agent, conversation } });
    expect(report.lsRow).toContain(`running (resumed ${agent} ${conversation.slice(0, 8)}…)`);
    // and `burrow attach`: a real terminal holds the line above the agent's screen, which is the agent's own.
    expect(report.attach.firstLine).toMatch(
      new RegExp(
        `^\\[burrow: attached to ${agent}; resumed ${AGENT_TITLES[agent]} conversation ${conversation} at \\d\\d:\\d\\d; detach with `,
      ),
    );
    expect(report.attach.screen).toMatch(/Reply 2: second message/);
    expect(report.attach.screen).not.toContain('[burrow: attached');
    expect(report.attach.exitCode).toBe(0);
    // The agent had the earlier conversation: its next request carried the first turn and its answer.
    const turns = report.resumedTurns.map((t) => `${t.role}: ${t.text}`);
    const firstAt = turns.findIndex((t) => t === 'user: first message');
    expect(firstAt, turns.join('\n')).toBeGreaterThanOrEqual(0);
    expect(turns[firstAt + 1], turns.join('\n')).toMatch(/^assistant: Reply 1: first message/);
    expect(turns.at(-1)).toBe('user: second message');
    expect(report.screens.resumed).toMatch(/Reply 2: second message/);
  });
});
