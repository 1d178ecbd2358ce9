import { beforeAll, describe, expect, it } from 'vitest';
import { type BurrowDaemon, until } from '../helpers/burrow-daemon.js';
import { useDaemonStack } from './daemon-stack.js';
import type { Phone } from './phone/phone.js';
import { waitForPaintedTerminal } from './pocket-screens.js';

/** burrow-agent/src/terminal/limits.ts: NOTIFY_TITLE_MAX_CODE_POINTS, NOTIFY_BODY_MAX_CODE_POINTS. */
const TITLE_MAX = 256;
const BODY_MAX = 1024;

interface Row {
  readonly id: string;
  readonly name: string;
  readonly status: string;
  readonly ringing: boolean;
  readonly todo: boolean;
  readonly notification: { source: string; title: string | null; body: string | null } | null;
}

let daemon: BurrowDaemon;
let phone: Phone;

const rows = () => daemon.json<Row[]>('ls', '--json');
const row = async (name: string) => {
  const found = (await rows()).find((r) => r.name === name);
  if (found === undefined) throw new Error(`no session named ${name}`);
  return found;
};
const section = () => phone.getByRole('region', { name: /./ }).first();
const sessionItems = () => section().locator('li.session');
const itemFor = (name: string) =>
  sessionItems().filter({ has: phone.getByRole('button', { name: `Open ${name}` }) });

/** Starts a bash session through the CLI, the way a user would; its id. */
async function newSession(name: string, ...command: string[]): Promise<string> {
  const r = await daemon.cli('new', '--name', name, ...(command.length > 0 ? ['--', ...command] : []));
  expect(r.code, r.stderr).toBe(0);
  return r.stdout.trim();
}

const stack = useDaemonStack('attention');
beforeAll(async () => {
  ({ daemon, phone } = stack);
});

describe('attention in a phone browser, against a real daemon', () => {
  it('a session that rings while the phone is on the list shows first, in words, with its text', async () => {
    await newSession('aa-shell');
    await daemon.pairWith('e2e phone', (link) => phone.goto(link));
    await section().getByText('connected').waitFor({ timeout: 20_000 });
    await phone.getByRole('button', { name: 'Open aa-shell' }).waitFor({ timeout: 20_000 });
    // Created second and sorting after "aa-shell" by name: only the ring can put it first.
    await newSession('zz-build', '/bin/bash', '-c', "sleep 1; printf '\\033]9;build done\\007'; exec bash");
    await until(async () => (await row('zz-build')).ringing, 'zz-build to ring', 15_000);
    expect(await row('zz-build')).toMatchObject({
      status: 'ALERT_RINGING',
      notification: { source: 'osc9', body: 'build done' },
    });
    const ringing = itemFor('zz-build');
    await ringing.getByText('Needs you').waitFor({ timeout: 10_000 });
    await expect.poll(() => sessionItems().first().textContent()).toContain('zz-build');
    expect(await ringing.locator('.session-preview').textContent()).toContain('build done');
    // Not by colour alone: the ring is a word and a bell glyph, and the row says so to a screen reader.
    expect(await ringing.locator('.badge').first().textContent()).toMatch(/Needs you/);
    expect(await itemFor('aa-shell').getByText('Needs you').count()).toBe(0);
    await phone.screenshot('attention-1-ringing');
  });

  it('opening the session acknowledges without input: the ring stops and the look leaves a TODO', async () => {
    await phone.getByRole('button', { name: 'Open zz-build' }).tap();
    await waitForPaintedTerminal(phone);
    await until(async () => !(await row('zz-build')).ringing, 'the ring to be acknowledged', 10_000);
    expect(await row('zz-build')).toMatchObject({ ringing: false, todo: true });
    await phone.screenshot('attention-2-opened');
  });

  it('typing into the session acknowledges with input and clears the TODO', async () => {
    await phone.locator('.xterm-helper-textarea').focus();
    await phone.keyboard.type('echo typed-here');
    await phone.keyboard.press('Enter');
    await until(async () => !(await row('zz-build')).todo, 'the TODO to clear', 10_000);
    expect(await row('zz-build')).toMatchObject({ ringing: false, todo: false });
  });

  it('a report while the phone is looking at the session does not ring; unanswered, it is a TODO after', async () => {
    // Two seconds after the Enter that starts it: past that keystroke's echo window, so it is a report the
    // viewer sees arrive, not output of what they typed.
    // `req""-sent` on the typed line, `req-sent` only once the report is out.
    await phone.keyboard.type(`sleep 2; printf '\\033]9;while you look\\007'; echo req""-sent`);
    await phone.keyboard.press('Enter');
    // Engaged (present and focused here): the report is held, not rung (alert-spec "holding for engaged
    // sessions"); it would ring only if this viewer's presence lapsed to idle.
    await phone.getByText('req-sent', { exact: true }).first().waitFor({ timeout: 15_000 });
    const looked = await row('zz-build');
    expect(looked.ringing).toBe(false);
    expect(looked.status).not.toBe('ALERT_RINGING');
    // Leaving without answering it: the request stays as a TODO with its text, never a ring (issue 13).
    await phone.goBack();
    await phone.getByRole('button', { name: 'Open zz-build' }).waitFor({ timeout: 20_000 });
    await until(async () => (await row('zz-build')).todo, 'the TODO the unanswered request leaves', 10_000);
    expect(await row('zz-build')).toMatchObject({
      ringing: false,
      notification: { source: 'osc9', body: 'while you look' },
    });
    expect(await itemFor('zz-build').getByText('Needs you').count()).toBe(0);
    await itemFor('zz-build').getByText('TODO', { exact: true }).waitFor({ timeout: 10_000 });
    await phone.screenshot('attention-3-todo');
  });

  it('hostile notification text shows on the phone as bounded plain text (issue 8)', async () => {
    // OSC 777: title = HTML, body = bidi override + zero-width + C1 CSI + HTML + 6,000 characters.
    const script = [
      'sleep 1',
      `printf '\\033]777;notify;<img src=x onerror=alert(1)>;\\342\\200\\256evil\\342\\200\\213 \\302\\233 <b>bold</b> %s\\007' "$(head -c 6000 /dev/zero | tr '\\0' x)"`,
      'exec bash',
    ].join('; ');
    await newSession('hostile', '/bin/bash', '-c', script);
    await until(async () => (await row('hostile')).ringing, 'hostile to ring', 15_000);
    const item = itemFor('hostile');
    await item.getByText('Needs you').waitFor({ timeout: 10_000 });
    const preview = (await item.locator('.session-preview').textContent()) ?? '';
    expect(preview).toContain('<img src=x onerror=alert(1)>');
    expect(preview).toContain('<b>bold</b>');
    expect(preview).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200b-\u200f\u0080-\u009f\u001b]/);
    expect([...preview].length).toBeLessThanOrEqual(TITLE_MAX + BODY_MAX + ' — '.length);
    // Shown as text: no element was made from it. On the list it takes at most three lines (a glance).
    expect(await item.locator('img, b').count()).toBe(0);
    const box = await item.locator('.session-preview').evaluate((el) => {
      const e = el as unknown as { clientHeight: number; ownerDocument: { defaultView: unknown } };
      const view = e.ownerDocument.defaultView as {
        getComputedStyle(x: unknown): { lineHeight: string; fontSize: string };
      };
      const style = view.getComputedStyle(el);
      // 'normal' line height is about 1.2 em; allow 1.5 em so the check is about line COUNT only.
      const line = Number.parseFloat(style.lineHeight) || Number.parseFloat(style.fontSize) * 1.5;
      return { height: e.clientHeight, line };
    });
    expect(box.height).toBeLessThanOrEqual(Math.ceil(box.line * 3) + 1);
    const { notification } = await row('hostile');
    expect([...(notification?.body ?? '')].length).toBeLessThanOrEqual(BODY_MAX);
    await phone.screenshot('attention-4-hostile');
  });

  it('a 1 MB OSC 9 is dropped whole (no ring, no text) and the parser still hears the next report', async () => {
    const script = [
      'sleep 1',
      `printf '\\033]9;%s\\007' "$(head -c 1048576 /dev/zero | tr '\\0' y)"`,
      'sleep 1',
      "printf '\\033]9;after the flood\\007'",
      'exec bash',
    ].join('; ');
    await newSession('flood', '/bin/bash', '-c', script);
    await until(async () => (await row('flood')).ringing, 'flood to ring', 20_000);
    expect((await row('flood')).notification?.body).toBe('after the flood');
    await itemFor('flood').getByText('Needs you').waitFor({ timeout: 10_000 });
    expect((await itemFor('flood').locator('.session-preview').textContent()) ?? '').not.toContain('yyyy');
  });
});
