/**
 * The phone harness's tap (tests/e2e/phone/locator.ts), in every engine: it waits for an element that is
 * still moving or covered, and a tap lands on it exactly once. WebDriver (WebKit) and Puppeteer (Firefox)
 * click where the element was when they looked; Pocket's build warning appearing above a prompt moved "Go
 * back" under the click, and the click landed on the warning (three full runs, 3–4 Dec 2026). An element out of
 * view is scrolled to first, as WebDriver's click and Playwright's tap do (the first version of the steady tap
 * waited for a row below the fold to come into view by itself, and timed out: WebKit screen conformance, full
 * run of 4 Dec 2026).
 * A page served over loopback by this file: no relay or Burrow.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopAll } from '../helpers/stop-all.js';
import type { Phone } from './phone/phone.js';
import { launchPhone } from './phone/project.js';

/**
 * `#moving`: a banner above "Go back" grows by 23 px every 20 ms up to 230 px, starting when the page is
 * shown (a prompt pushed down while a warning fills in). `#covered`: a sheet lies over "Start" for 400 ms.
 * `#far`: a button 3,000 px down, out of view (a long session list).
 * Every click is counted per element id.
 */
const PAGE = `<!doctype html><meta name="viewport" content="width=device-width">
<body style="margin:0;font:16px sans-serif">
<div id="banner" style="height:0;background:#a00"></div>
<button id="back" style="display:block;margin:8px;padding:12px">Go back</button>
<div style="position:relative;margin-top:40px">
  <button id="start" style="display:block;margin:8px;padding:12px">Start</button>
  <div id="sheet" style="position:absolute;inset:0;background:#333"></div>
</div>
<div style="height:3000px"></div>
<button id="far" style="display:block;margin:8px;padding:12px">Far down</button>
<div style="height:600px"></div>
<script>
  window.clicks = {};
  addEventListener('click', (e) => { const id = e.target.id || 'other'; clicks[id] = (clicks[id] || 0) + 1; }, true);
  let h = 0;
  const grow = setInterval(() => {
    h += 23;
    document.getElementById('banner').style.height = h + 'px';
    if (h >= 230) clearInterval(grow);
  }, 20);
  setTimeout(() => document.getElementById('sheet').remove(), 400);
</script>`;

let server: Server;
let url: string;
let phone: Phone;

beforeAll(async () => {
  server = createServer((_, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  phone = await launchPhone();
});

afterAll(() =>
  stopAll(
    () => phone?.close(),
    () => new Promise<void>((resolve) => server?.close(() => resolve())),
  ),
);

const clicks = () => phone.evaluate('window.clicks') as Promise<Record<string, number>>;

describe('the harness taps what the test names, once', () => {
  it('a button pushed down while it is tapped is reached once, and nothing else is clicked', async () => {
    await phone.goto(url);
    await phone.getByRole('button', { name: 'Go back' }).tap();
    expect(await clicks()).toEqual({ back: 1 });
  });

  it('a button under a sheet is tapped once the sheet is gone, never the sheet', async () => {
    await phone.goto(url);
    await phone.getByRole('button', { name: 'Start' }).tap();
    const seen = await clicks();
    expect(seen.start).toBe(1);
    expect(seen.sheet).toBeUndefined();
  });

  it('a button out of view is scrolled to and tapped once', async () => {
    await phone.goto(url);
    await phone.getByRole('button', { name: 'Far down' }).tap();
    expect(await clicks()).toEqual({ far: 1 });
  });
});
