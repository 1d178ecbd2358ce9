/**
 * The smoke test's body, shared by the default and the notify-enabled files (two files so vitest can run them
 * beside each other): each pinned agent runs the approval scenario in a real PTY against the fake model API,
 * and the test asserts the permission prompt was answered (approved.txt exists, the model got the tool's
 * result) and that the agent wrote what tests/agents/README.md's table says it writes. The report of every
 * run lands in test-artifacts/agents/ (timings, signals per phase, screens). The agents run side by side
 * (concurrent tests, each its own PTY, fake model API, HOME and directory: they share nothing), so a file
 * takes about its slowest agent's run, not the sum; each agent is its own test and fails under its name.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, it } from 'vitest';
import { REPO_ROOT } from '../../relay-worker/test/harness.js';
import type { AgentName } from './agent-clis.js';
import { type ApprovalReport, runApproval } from './approval-run.js';
import { APPROVAL_COMMAND } from './fake-model/scenario.js';
import { ensureAgentClis, INSTALL_TIMEOUT_MS } from './install-agents.js';

/** One run: start (≤ 90 s budget) + prompt + settle + turn + settle; generous for a loaded machine. */
export const RUN_TIMEOUT_MS = 240_000;

/** What each agent writes, per variant (README.md's table); checked so a new agent version that changes it fails. */
export interface Expected {
  /** Alerts (terminal-signals.ts isAlert) while the permission prompt shows: OSC strings that must be there. */
  readonly promptOsc: readonly RegExp[];
  readonly promptBel: boolean;
  readonly turnEndOsc: readonly RegExp[];
  readonly turnEndBel: boolean;
  /** Title forms that must appear at the prompt. */
  readonly promptTitles: readonly RegExp[];
  readonly startupOsc?: readonly RegExp[];
}

export function smokeSuite(
  variant: 'default' | 'notify',
  expected: Readonly<Partial<Record<AgentName, Expected>>>,
): void {
  beforeAll(async () => {
    await ensureAgentClis();
  }, INSTALL_TIMEOUT_MS + 60_000);

  describe.concurrent(`${variant} notification config`, () => {
    it.for(Object.keys(expected) as AgentName[])(
      '%s: asks permission for the command, runs it once allowed, and writes what it always writes at the prompt and turn end',
      { timeout: RUN_TIMEOUT_MS },
      // The test's own expect: the agents run concurrently, and each failure is its agent's.
      async (agent, { expect }) => {
        const report = await runApproval(agent, { notify: variant === 'notify' });
        saveReport(report, variant);
        const want = expected[agent]!;

        expect(report.approvedFile, 'approved.txt after allowing once').toBe(true);
        const conv = report.toolResultRequest!.conversation!;
        const call = conv.turns.flatMap((t) => (t.role === 'assistant' ? t.toolCalls : [])).at(-1)!;
        expect(JSON.stringify(call.args)).toContain(APPROVAL_COMMAND);
        expect(
          conv.turns.find((t) => t.role === 'tool' && t.callId === call.id),
          'the tool result answers the call',
        ).toBeDefined();
        expect(report.apiErrors).toEqual([]);
        expect(report.keyLeaked, 'the fake key is redacted in the record').toBe(false);

        const osc = (list: readonly string[], re: RegExp) => list.some((o) => re.test(o));
        for (const re of want.promptOsc)
          expect(
            osc(report.atPrompt.osc, re),
            `${re} at the prompt in ${JSON.stringify(report.atPrompt.osc)}`,
          ).toBe(true);
        for (const re of want.turnEndOsc)
          expect(
            osc(report.turnEnd.osc, re),
            `${re} at turn end in ${JSON.stringify(report.turnEnd.osc)}`,
          ).toBe(true);
        for (const re of want.promptTitles)
          expect(
            osc(report.atPrompt.titles, re),
            `title ${re} in ${JSON.stringify(report.atPrompt.titles)}`,
          ).toBe(true);
        for (const re of want.startupOsc ?? [])
          expect(osc(report.startup.osc, re), `${re} at start in ${JSON.stringify(report.startup.osc)}`).toBe(
            true,
          );
        expect(report.atPrompt.bels > 0, 'BEL at the prompt').toBe(want.promptBel);
        expect(report.turnEnd.bels > 0, 'BEL at turn end').toBe(want.turnEndBel);
        // Nothing alerting beyond what is listed: a default config that starts notifying is news for issue 23.
        if (want.promptOsc.length === 0 && !want.promptBel) expect(report.atPrompt.firstAlertMs).toBeNull();
        if (want.turnEndOsc.length === 0 && !want.turnEndBel) expect(report.turnEnd.firstAlertMs).toBeNull();
      },
    );
  });
}

function saveReport(report: ApprovalReport, variant: string): void {
  const dir = join(REPO_ROOT, 'test-artifacts', 'agents');
  mkdirSync(dir, { recursive: true });
  const { requests, toolResultRequest: _t, ...rest } = report;
  const summary = {
    ...rest,
    requests: requests.map((r) => `${r.at}ms ${r.method} ${r.path} ${r.status}${r.mainLoop ? ' main' : ''}`),
  };
  writeFileSync(join(dir, `${report.agent}-${variant}.json`), `${JSON.stringify(summary, null, 2)}\n`);
  console.log(
    `${report.agent} (${variant}): ready ${report.readyMs} ms, prompt ${report.promptMs} ms, turn done ${report.doneMs} ms; ` +
      `first alert at prompt ${report.atPrompt.firstAlertMs ?? 'none'}, at turn end ${report.turnEnd.firstAlertMs ?? 'none'}`,
  );
}
