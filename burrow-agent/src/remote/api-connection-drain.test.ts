/**
 * ApiConnection's slow-viewer handling (DESIGN §4.3 "a slow viewer never blocks the session", issue 8 Load):
 * a session stops feeding a viewer whose transport backlog is over MAX_VIEWER_BACKLOG_BYTES, and the
 * connection must then watch the backlog and call `drained()` once it falls under DRAINED_BELOW_BYTES — however
 * the backlog got that high. The relay link is one socket shared by every phone, so it can fill from another
 * phone's snapshot or a history page while this phone has had no output delivered at all.
 */
import { type BurrowMessage, encodeClientMessage } from '@burrow/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { apiConnectionRig, disposeRigs } from '../../test/api-connection-rig.js';
import { MAX_VIEWER_BACKLOG_BYTES, REMOTE_STALL_MS } from '../viewer/viewer.js';
import { DRAIN_POLL_MS, DRAINED_BELOW_BYTES } from './api-connection.js';

afterEach(disposeRigs);

/** Wall time, plus whatever a test skips ahead (the session's stall bound runs on the registry's clock). */
let skipped = 0;
const clock = () => Date.now() + skipped;

function connection() {
  skipped = 0;
  return apiConnectionRig({}, clock);
}

const frame = (m: Parameters<typeof encodeClientMessage>[0]) => encodeClientMessage(m);
const hello = frame({ type: 'hello', appVersion: 't', viewer: 'test', cols: 80, rows: 24 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const text = (sent: BurrowMessage[]) =>
  sent
    .filter((m) => m.type === 'output')
    .map((m) => new TextDecoder().decode((m as { data: Uint8Array }).data))
    .join('');

async function until(cond: () => boolean, what: string, ms = 5_000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

describe('ApiConnection drain (slow viewer)', () => {
  it('resumes a viewer marked behind while no output of its own had been delivered', async () => {
    const c = connection();
    c.api.receive(hello);
    // `read` waits for a keystroke, so nothing is printed until the link is already backed up.
    const s = c.registry.create({
      cwd: '/',
      command: ['/bin/sh', '-c', 'read x; echo AFTER""DRAIN; exec cat'],
    });
    c.api.receive(frame({ type: 'attach', rid: 1, session: s.id, cols: 80, rows: 24 }));
    await until(() => c.sent.some((m) => m.type === 'attached'), 'the attach snapshot');
    // Another phone's traffic fills the shared link past the per-viewer bound.
    c.link.backlog = MAX_VIEWER_BACKLOG_BYTES + 1;
    c.api.receive(
      frame({ type: 'input', session: s.id, kind: 'user', data: new TextEncoder().encode('go\r') }),
    );
    await until(() => s.info().offset > 0, 'the program to print');
    await sleep(100);
    expect(text(c.sent)).not.toContain('AFTERDRAIN'); // held back: the viewer is behind
    // The phone has read all it was sent (R-FLOW-1), and the shared link drains to just under the mark.
    c.api.receive(frame({ type: 'ack', received: c.link.sentBytes }));
    c.link.backlog = DRAINED_BELOW_BYTES - 1;
    await until(
      () => text(c.sent).includes('AFTERDRAIN'),
      'the viewer to be caught up after the drain',
      20 * DRAIN_POLL_MS + 1_000,
    );
    c.api.dispose();
  });

  it('keeps a viewer behind while the backlog stays high, and catches it up once it drains', async () => {
    const c = connection();
    c.api.receive(hello);
    const s = c.registry.create({ cwd: '/', command: ['/bin/cat'] });
    c.api.receive(frame({ type: 'attach', rid: 1, session: s.id, cols: 80, rows: 24 }));
    await until(() => c.sent.some((m) => m.type === 'attached'), 'the attach snapshot');
    c.link.backlog = DRAINED_BELOW_BYTES; // high enough to watch, under the per-viewer bound: still fed
    c.api.receive(
      frame({ type: 'input', session: s.id, kind: 'user', data: new TextEncoder().encode('one\r') }),
    );
    await until(() => text(c.sent).includes('one'), 'output while under the bound');
    c.link.backlog = MAX_VIEWER_BACKLOG_BYTES + 1;
    c.api.receive(
      frame({ type: 'input', session: s.id, kind: 'user', data: new TextEncoder().encode('two\r') }),
    );
    await until(() => s.info().offset >= 10, 'the second echo in the session');
    await sleep(20 * DRAIN_POLL_MS);
    expect(text(c.sent)).not.toContain('two');
    c.link.backlog = 0;
    await until(() => text(c.sent).includes('two'), 'the held output after the drain');
    c.api.dispose();
  });

  it('R-FLOW-1: a phone that stops acknowledging stops being fed at the bound, and is resynced once it acks', async () => {
    const c = connection();
    c.api.receive(hello);
    // 3 MB of output, far past the per-viewer bound, from a program that starts on a keystroke.
    const s = c.registry.create({
      cwd: '/',
      command: [
        '/bin/sh',
        '-c',
        `read x; head -c 3000000 /dev/zero | tr '\\0' x; echo; echo ALL""DONE; exec cat`,
      ],
    });
    c.api.receive(frame({ type: 'attach', rid: 1, session: s.id, cols: 80, rows: 24 }));
    await until(() => c.sent.some((m) => m.type === 'attached'), 'the attach snapshot');
    c.api.receive(
      frame({ type: 'input', session: s.id, kind: 'user', data: new TextEncoder().encode('go\r') }),
    );
    await until(() => s.info().offset > 3_000_000, 'the program to print it all', 20_000);
    await sleep(20 * DRAIN_POLL_MS);
    // The relay link itself is empty (link.backlog 0): only the missing acks hold this phone back.
    const fed = text(c.sent).length;
    expect(fed).toBeLessThan(MAX_VIEWER_BACKLOG_BYTES + 256 * 1024);
    expect(text(c.sent)).not.toContain('ALLDONE');
    // It stays silent past REMOTE_STALL_MS, so the session no longer keeps what was printed meanwhile for it
    // (a phone back within that time is caught up from the session's log instead). It reads again and
    // acknowledges everything it was sent: resynced to the current screen.
    skipped += REMOTE_STALL_MS;
    c.api.receive(frame({ type: 'ack', received: c.link.sentBytes }));
    await until(
      () => c.sent.some((m) => m.type === 'resync' || (m.type === 'output' && text([m]).includes('ALLDONE'))),
      'a resync (or the resumed tail) after the ack',
      20 * DRAIN_POLL_MS + 2_000,
    );
    expect(text(c.sent).length).toBeLessThan(fed + 512 * 1024); // not handed the whole backlog
    c.api.dispose();
  });

  it('R-FLOW-1: an ack beyond what was sent, or going backwards, closes the connection', () => {
    const c = connection();
    c.api.receive(hello);
    const sent = c.link.sentBytes;
    c.api.receive(frame({ type: 'ack', received: sent }));
    expect(c.closes).toEqual([]);
    c.api.receive(frame({ type: 'ack', received: sent + 1 }));
    expect(c.closes).toEqual([4107]);
    const d = connection();
    d.api.receive(hello);
    d.api.receive(frame({ type: 'ping', rid: 1 }));
    d.api.receive(frame({ type: 'ack', received: d.link.sentBytes }));
    d.api.receive(frame({ type: 'ack', received: d.link.sentBytes - 1 }));
    expect(d.closes).toEqual([4107]);
    c.api.dispose();
    d.api.dispose();
  });
});
