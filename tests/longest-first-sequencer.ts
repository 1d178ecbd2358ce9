/**
 * The order `npm test` starts its files in: the longest first (LPT scheduling), across projects.
 *
 * Vitest's default order runs the projects one after another by name and, on a clone with no results cache (as
 * CI is), each project's files largest first: a long file (the agent ring test, 4 minutes of which 3 are the
 * issue's typing window) could start late and leave the other workers idle at the end. A group's wall time is
 * at least its longest file, and at least its sum over the workers; starting the long files first keeps it
 * near that bound.
 *
 * `EXPECTED_SECONDS` lists the files over ~15 s with their time in a full run on this machine (2 cores). Only
 * the order matters: refresh it from a run's report when files change much. A file not listed keeps vitest's
 * order, after the listed ones. A project's `sequence.groupOrder` still comes first.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

export const EXPECTED_SECONDS: Readonly<Record<string, number>> = {
  'agents:tests/agents/agents-ring.test.ts': 240,
  'e2e-firefox:tests/e2e/screen-conformance.e2e.test.ts': 94,
  'e2e-chromium:tests/e2e/screen-conformance.e2e.test.ts': 72,
  'e2e-webkit:tests/e2e/screen-conformance.e2e.test.ts': 77,
  'integration:tests/integration/daemon-push.test.ts': 64,
  'e2e-firefox:tests/e2e/direct.e2e.test.ts': 56,
  'integration:tests/integration/screen-conformance.test.ts': 65,
  'e2e-chromium:tests/e2e/direct.e2e.test.ts': 49,
  'e2e-webkit:tests/e2e/terminal-size.e2e.test.ts': 45,
  'e2e-firefox:tests/e2e/terminal-size.e2e.test.ts': 45,
  'burrow-agent:burrow-agent/test/cli.test.ts': 44,
  'integration:tests/integration/fault-blackhole.test.ts': 43,
  'e2e-chromium:tests/e2e/terminal-size.e2e.test.ts': 41,
  'integration:tests/integration/fault-suspend.test.ts': 40,
  'agents:tests/agents/agents-recovery.test.ts': 38,
  'integration:tests/integration/fault-relay-restart.test.ts': 31,
  'integration:tests/integration/attack-handshake-flood.test.ts': 30,
  'e2e-firefox:tests/e2e/pocket.e2e.test.ts': 29,
  'integration:tests/integration/fault-daemon-restart.test.ts': 28,
  'e2e-firefox:tests/e2e/attention.e2e.test.ts': 28,
  'e2e-chromium:tests/e2e/history.e2e.test.ts': 28,
  'e2e-chromium:tests/e2e/attention.e2e.test.ts': 27,
  'e2e-webkit:tests/e2e/pocket.e2e.test.ts': 26,
  'agents:tests/agents/agents-default.test.ts': 25,
  'e2e-firefox:tests/e2e/pocket-build.e2e.test.ts': 25,
  'integration:tests/integration/npm-start.test.ts': 24,
  'e2e-webkit:tests/e2e/attention.e2e.test.ts': 24,
  'integration:tests/integration/attention-phone-presence.test.ts': 23,
  'e2e-webkit:tests/e2e/sessions.e2e.test.ts': 23,
  'integration:tests/integration/remote-e2e.test.ts': 22,
  'integration:tests/integration/attack-transport.test.ts': 22,
  'e2e-chromium:tests/e2e/sessions.e2e.test.ts': 22,
  'e2e-chromium:tests/e2e/pocket-build.e2e.test.ts': 22,
  'relay-worker:relay-worker/test/relay-sockets.test.ts': 21,
  'integration:tests/integration/daemon-attention.test.ts': 21,
  'agents:tests/agents/agents-notify.test.ts': 21,
  'e2e-webkit:tests/e2e/pocket-build.e2e.test.ts': 21,
  'e2e-chromium:tests/e2e/pocket.e2e.test.ts': 21,
  'integration:tests/integration/direct-offers.test.ts': 20,
  'integration:tests/integration/agent-recovery-phone.test.ts': 20,
  'integration:tests/integration/size-authority.test.ts': 19,
  'integration:tests/integration/paste.test.ts': 19,
  'e2e-firefox:tests/e2e/sessions.e2e.test.ts': 19,
  'burrow-agent:burrow-agent/test/state-crash.test.ts': 19,
  'integration:tests/integration/attention-watch.test.ts': 18,
  'integration:tests/integration/attention-presence.test.ts': 18,
  'e2e-chromium:tests/e2e/recovery.e2e.test.ts': 18,
  'integration:tests/integration/package-install.test.ts': 17,
  'integration:tests/integration/fault-state-dir.test.ts': 17,
  'integration:tests/integration/daemon-remote.test.ts': 17,
  'relay-worker:relay-worker/test/relay-slots.test.ts': 16,
  'integration:tests/integration/daemon-attention-agent.test.ts': 16,
  'e2e-firefox:tests/e2e/recovery.e2e.test.ts': 16,
};

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const base = await super.sort(files);
    const root = this.ctx.config.root;
    const seconds = (f: TestSpecification) =>
      EXPECTED_SECONDS[`${f.project.name}:${relative(root, f.moduleId)}`] ?? 0;
    const rank = new Map(base.map((f, i) => [f, i]));
    // Array.prototype.sort is stable; ties (every unlisted file) keep vitest's order.
    return [...base].sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder ||
        seconds(b) - seconds(a) ||
        rank.get(a)! - rank.get(b)!,
    );
  }
}
