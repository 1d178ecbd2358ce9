/**
 * Agent recovery on the phone, in every engine (issue 27): a session running a stand-in `claude` (a real
 * program with Claude Code 2.1.197's store layout; the real CLIs: tests/agents/agents-recovery.test.ts) is
 * listed, after the daemon restarts, as "Claude Code conversation can be resumed" with a Resume button; a
 * Resume whose conversation is gone shows the Burrow's reason and leaves the row as it was; once it is back,
 * Resume opens the running session, whose first line says which conversation it resumed — in the terminal (the
 * daemon's banner, kept in the scrollback) and above it, as the view's own line (R-DIR-9), which every agent
 * keeps (most clear their screen as they start).
 */

import { renameSync } from 'node:fs';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeClaudeHome, isFakeClaude, writeClaudeStore } from '../../burrow-agent/test/fake-claude.js';
import { type RelayHandle, startRelay } from '../../relay-worker/test/harness.js';
import { BurrowDaemon, until } from '../helpers/burrow-daemon.js';
import { stopAll } from '../helpers/stop-all.js';
import type { Phone } from './phone/phone.js';
import { launchPhone } from './phone/project.js';
import { POCKET_DIST, preparePocket, reportFailures } from './pocket-browser.js';
import { waitForPaintedTerminal, waitForTerminal } from './pocket-screens.js';

const ID = '2e9d4c1a-6b7f-4a83-9c5d-1f0e8b7a6d55';
const cleanups: (() => void)[] = [];
let relay: RelayHandle;
let daemon: BurrowDaemon;
let phone: Phone;
const h = fakeClaudeHome(cleanups);
const env = { HOME: h.root, PATH: `${h.bin}:${process.env.PATH ?? '/usr/bin:/bin'}`, PS1: '$ ' };

/** `text` as the terminal's rows show it: spaces may be non-breaking, a long line wraps anywhere. */
const loose = (text: string) =>
  new RegExp(
    text
      .split(/\s+/)
      .map((w) => [...w].map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\s*'))
      .join('[\\s\\u00a0]*'),
  );
const section = () => phone.getByRole('region', { name: hostname() });
const row = () =>
  section()
    .locator('li.session')
    .filter({ has: phone.getByRole('button', { name: /^Open agent\b/ }) });

beforeAll(async () => {
  await preparePocket();
  relay = await startRelay({ assetsDir: POCKET_DIST });
  daemon = await BurrowDaemon.start({ env });
  await daemon.enroll(relay.url);
  phone = await launchPhone();
}, 180_000);
reportFailures(
  'recovery',
  () => phone,
  () => `daemon log:\n${daemon?.log.slice(-4000)}`,
);
afterAll(() =>
  stopAll(
    async () => phone?.close(),
    async () => daemon?.stop(),
    async () => relay?.stop(),
    async () => {
      for (const c of cleanups.splice(0).reverse()) c();
    },
  ),
);

describe('Resume on the phone', () => {
  it('an agent session comes back resumable after a restart; a refusal says why; Resume opens it', async () => {
    await daemon.pairWith('e2e phone', (link) => phone.goto(link));
    await section().getByText('connected').waitFor({ timeout: 20_000 });
    const made = await daemon.cli(
      'new',
      '--name',
      'agent',
      '--cwd',
      h.work,
      '--',
      'env',
      `CLAUDE_CONFIG_DIR=${h.config}`,
      'claude',
    );
    expect(made.code, made.stderr).toBe(0);
    let pid = 0;
    await until(async () => {
      const rows = await daemon.json<{ name: string; pid: number }[]>('ls', '--json');
      pid = rows.find((r) => r.name === 'agent')?.pid ?? 0;
      return pid > 0 && isFakeClaude(pid);
    }, 'the stand-in agent');
    const transcript = writeClaudeStore(h.config, pid, h.work, ID);
    await until(async () => {
      const rows = await daemon.json<{ name: string; recovery: { conversation: string } | null }[]>(
        'ls',
        '--json',
      );
      return rows.find((r) => r.name === 'agent')?.recovery?.conversation === ID;
    }, 'the capture');

    await daemon.stop();
    daemon = await BurrowDaemon.start({ env, stateDir: daemon.stateDir });
    await row().getByText('Claude Code conversation can be resumed').waitFor({ timeout: 60_000 });
    await phone.screenshot('recovery-resumable');

    renameSync(transcript, `${transcript}.away`);
    await row().getByRole('button', { name: 'Resume Claude Code' }).tap();
    await phone
      .getByRole('alert')
      .filter({ has: phone.getByText(new RegExp(`Claude Code's conversation ${ID} is gone`)) })
      .waitFor({ timeout: 20_000 });
    expect(await row().getByText('Claude Code conversation can be resumed').count()).toBe(1);
    renameSync(`${transcript}.away`, transcript);

    await row().getByRole('button', { name: 'Resume Claude Code' }).tap();
    await waitForPaintedTerminal(phone);
    await waitForTerminal(phone, loose(`burrow: resuming Claude Code conversation ${ID}`));
    await waitForTerminal(phone, loose(`claude --resume ${ID}`));
    expect(await phone.getByRole('heading', { name: 'agent' }).count()).toBe(1);
    // The view's first line says it too, above the terminal, in words a screen reader reads whole (R-DIR-9):
    // the agent's own screen may not (most agents clear it as they start).
    const resumedLine = phone.getByRole('note', {
      name: new RegExp(`^Resumed Claude Code conversation ${ID} at \\d`),
    });
    await resumedLine.waitFor({ timeout: 20_000 });
    expect(await resumedLine.textContent()).toMatch(
      new RegExp(`^Resumed Claude Code conversation ${ID} at \\d`),
    );
    const lineBox = await resumedLine.boundingBox();
    const termBox = await phone.locator('.term-host').boundingBox();
    expect(lineBox, 'the resumed line is shown').not.toBeNull();
    expect(lineBox!.y + lineBox!.height).toBeLessThanOrEqual(termBox!.y + 1);
    // One line within the phone's width: the words and the start of the id are there, the time whole.
    const screenBox = (await phone.locator('main.terminal-screen').boundingBox())!;
    expect(lineBox!.x + lineBox!.width).toBeLessThanOrEqual(screenBox.x + screenBox.width + 1);
    expect(lineBox!.height).toBeLessThan(40);
    for (const part of ['.term-resumed-what', '.term-resumed-id', '.term-resumed-when']) {
      const box = await resumedLine.locator(part).boundingBox();
      expect(box, `${part} is shown`).not.toBeNull();
      expect(box!.width, part).toBeGreaterThan(20);
      expect(box!.x + box!.width, `${part} ends within the line`).toBeLessThanOrEqual(
        lineBox!.x + lineBox!.width + 1,
      );
    }
    await phone.screenshot('recovery-resumed');
  });
});
