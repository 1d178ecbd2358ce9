/**
 * Size authority through the remote API (protocol R-SIZE-*, R-ATTACH-1): a phone is one viewer across its
 * connections (its device id), a connection that drops is not a detach, a start-over attach is not a claim,
 * and `resumed` comes before the size state that goes with it. Real sessions (sh in a PTY).
 */
import { type BurrowMessage, encodeClientMessage } from '@burrow/protocol';
import { afterEach, describe, expect, it } from 'vitest';
import { apiConnectionRig, disposeRigs, QUIET_ATTENTION } from '../../test/api-connection-rig.js';
import { until } from '../../test/helpers.js';
import type { SessionRegistry } from '../session/session-registry.js';
import type { ViewerEvent } from '../viewer/viewer.js';
import { ApiConnection } from './api-connection.js';

afterEach(disposeRigs);

const frame = (m: Parameters<typeof encodeClientMessage>[0]) => encodeClientMessage(m);
const hello = frame({ type: 'hello', appVersion: 't', viewer: 'test', cols: 48, rows: 20 });

/** Another connection of the phone `device` to the same Burrow (registry). */
function phoneConnection(registry: SessionRegistry, viewerId: string, device: string) {
  const sent: BurrowMessage[] = [];
  const api = new ApiConnection({
    viewerId,
    viewerIdentity: device,
    burrowName: 'home',
    registry,
    attention: QUIET_ATTENTION,
    send: (m) => {
      sent.push(m);
      return 1;
    },
    backlog: () => 0,
    close: () => {},
    log: () => {},
    forgetMe: async () => {},
    deliveryId: 'AAAAAAAAAAAAAAAAAAAAAA',
  });
  api.receive(hello);
  return { api, sent };
}

/** A `burrow attach` terminal on the Burrow's computer, recording its size events. */
function desk(registry: SessionRegistry, id: string, cols: number, rows: number) {
  const events: Extract<ViewerEvent, { type: 'size' }>[] = [];
  const attachment = registry.get(id).attach(
    {
      id: 'desk',
      kind: 'local',
      backlog: () => 0,
      deliver: (e) => {
        if (e.type === 'size') events.push(e);
      },
      close: () => {},
    },
    { size: { cols, rows } },
  );
  return { attachment, events };
}

const sizeMessages = (sent: BurrowMessage[]) =>
  sent.filter((m): m is Extract<BurrowMessage, { type: 'size-changed' }> => m.type === 'size-changed');

describe('ApiConnection size authority (R-SIZE-*)', () => {
  it('R-SIZE-6: a start-over attach on the same connection takes nothing from the desk', async () => {
    const { registry } = apiConnectionRig();
    const s = registry.create({ cwd: '/tmp', command: ['/bin/sh'], cols: 80, rows: 24 });
    const a = phoneConnection(registry, 'devA-1', 'devA');
    a.api.receive(frame({ type: 'attach', rid: 1, session: s.id, cols: 48, rows: 20 }));
    await until('the phone holds', () => sizeMessages(a.sent).at(-1)?.holder === 'you');
    desk(registry, s.id, 100, 30);
    await until('the desk holds', () => sizeMessages(a.sent).at(-1)?.holder === 'local');
    // The phone saw a gap and starts over (no resumeFrom): still the desk's size.
    a.api.receive(frame({ type: 'attach', rid: 2, session: s.id, cols: 48, rows: 20 }));
    await until('the new snapshot', () => a.sent.some((m) => m.type === 'attached' && m.rid === 2));
    await until('its size state', () => {
      const i = a.sent.findIndex((m) => m.type === 'attached' && m.rid === 2);
      return a.sent.slice(i).some((m) => m.type === 'size-changed');
    });
    expect(sizeMessages(a.sent).at(-1)).toMatchObject({ cols: 100, rows: 30, holder: 'local' });
    expect([s.info().cols, s.info().rows]).toEqual([100, 30]);
    a.api.dispose();
  });

  it('R-SIZE-5: a dropped connection leaves the size with the phone, away; its next connection resumes holding it', async () => {
    const { registry } = apiConnectionRig();
    const s = registry.create({ cwd: '/tmp', command: ['/bin/sh'], cols: 80, rows: 24 });
    const d = desk(registry, s.id, 100, 30);
    const a = phoneConnection(registry, 'devA-1', 'devA');
    a.api.receive(frame({ type: 'attach', rid: 1, session: s.id, cols: 48, rows: 20 }));
    await until('the phone holds', () => d.events.at(-1)?.holder === 'remote');
    // The connection goes (no detach): the desk is told the phone holds it, away; the PTY stays.
    a.api.dispose();
    expect(d.events.at(-1)).toMatchObject({ cols: 48, rows: 20, holder: 'remote', holderAway: true });
    expect([s.info().cols, s.info().rows]).toEqual([48, 20]);
    // The phone's next connection resumes: `resumed`, then who holds the size (it does, back).
    const b = phoneConnection(registry, 'devA-2', 'devA');
    b.api.receive(
      frame({ type: 'attach', rid: 5, session: s.id, cols: 48, rows: 20, resumeFrom: s.info().offset }),
    );
    const kinds = b.sent.filter((m) => m.type === 'resumed' || m.type === 'size-changed');
    expect(kinds.map((m) => m.type)).toEqual(['resumed', 'size-changed']);
    expect(kinds[1]).toMatchObject({ holder: 'you', cause: 'return', holderAway: false });
    expect(d.events.at(-1)).toMatchObject({ holder: 'remote', holderAway: false, cause: 'return' });
    // A deliberate detach hands the size over at once.
    b.api.receive(frame({ type: 'detach', session: s.id }));
    expect(d.events.at(-1)).toMatchObject({ cols: 100, rows: 30, holder: 'you', cause: 'handover' });
    expect([s.info().cols, s.info().rows]).toEqual([100, 30]);
    b.api.dispose();
    d.attachment.detach();
  });

  it('R-SIZE-3: a phone that does not hold the size resizes nothing; its fit takes it', async () => {
    const { registry } = apiConnectionRig();
    const s = registry.create({ cwd: '/tmp', command: ['/bin/sh'], cols: 80, rows: 24 });
    const a = phoneConnection(registry, 'devA-1', 'devA');
    a.api.receive(frame({ type: 'attach', rid: 1, session: s.id, cols: 48, rows: 20 }));
    desk(registry, s.id, 100, 30);
    a.api.receive(frame({ type: 'resize', session: s.id, cols: 30, rows: 40 }));
    expect([s.info().cols, s.info().rows]).toEqual([100, 30]);
    a.api.receive(frame({ type: 'fit', session: s.id, cols: 30, rows: 40 }));
    expect([s.info().cols, s.info().rows]).toEqual([30, 40]);
    await until('told', () => sizeMessages(a.sent).at(-1)?.cause === 'fit');
    expect(sizeMessages(a.sent).at(-1)).toMatchObject({ cols: 30, rows: 40, holder: 'you' });
    a.api.dispose();
  });
});
