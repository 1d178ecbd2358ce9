import { describe, expect, it } from 'vitest';
import { devicesCommand, revokeCommand } from './devices-command.js';
import { type PairingPort, pairCommand } from './pair-command.js';

function pairPort(
  request: { code: string; label: string; platform: string },
  link = 'https://relay.example/#pair=AQ',
) {
  const answers: boolean[] = [];
  let cancelled = 0;
  const expiresAt = Date.now() + 60_000;
  const port: PairingPort = {
    async startPairing({ approve, done }) {
      setTimeout(async () => {
        const ok = await approve(request);
        answers.push(ok);
        done(
          ok
            ? { outcome: 'paired', deviceId: 'dev0000000000001', label: request.label }
            : { outcome: 'declined', message: 'declined' },
        );
      }, 5);
      return { link, qr: '[qr]', expiresAt };
    },
    cancelPairing() {
      cancelled++;
    },
  };
  return { port, answers, cancelled: () => cancelled, expiresAt: () => expiresAt };
}

describe('pairCommand', () => {
  it('shows link, QR and code; --yes accepts without asking', async () => {
    const out: string[] = [];
    const p = pairPort({ code: '123456', label: 'Ana\u001b[31m phone', platform: 'iOS' });
    const status = await pairCommand({ label: null, yes: true }, p.port, {
      print: (s) => out.push(s),
      confirm: async () => {
        throw new Error('must not ask with --yes');
      },
    });
    expect(status).toBe(0);
    expect(out).toContain('https://relay.example/#pair=AQ');
    expect(out.join('\n')).toContain('Code: 123456');
    // The QR is the only thing drawn with escapes (its colours); the phone's label is shown, not interpreted.
    const qr = out.filter((s) => s.startsWith('\u001b[47m'));
    expect(qr).toHaveLength(1);
    expect(out.filter((s) => !qr.includes(s)).join('\n')).not.toContain('\u001b');
    expect(out.join('\n')).toContain('"Ana\\x1b[31m phone"');
    expect(out).toContain(
      'Open this link on your phone, or scan the QR code (it works once, until ' +
        `${new Date(p.expiresAt()).toLocaleTimeString()}):`,
    );
  });

  it('says that a loopback link opens only on this computer, and how a real phone pairs', async () => {
    const out: string[] = [];
    const p = pairPort({ code: '123456', label: 'x', platform: '' }, 'http://127.0.0.1:8787/#pair=AQ');
    await pairCommand({ label: null, yes: true }, p.port, {
      print: (s) => out.push(s),
      confirm: async () => true,
    });
    const text = out.join('\n');
    expect(text).toContain('This link points at 127.0.0.1:8787, which only this computer can reach');
    expect(text).toContain('A phone cannot open it');
    expect(text).toContain('README "Pair a real phone"');
    expect(text).not.toContain('Open this link on your phone');
  });

  it('asks y/N and a no declines', async () => {
    const out: string[] = [];
    const p = pairPort({ code: '654321', label: 'x', platform: '' });
    const questions: string[] = [];
    const status = await pairCommand({ label: null, yes: false }, p.port, {
      print: (s) => out.push(s),
      confirm: async (q) => {
        questions.push(q);
        return false;
      },
    });
    expect(questions).toHaveLength(1);
    expect(status).toBe(1);
    expect(p.answers).toEqual([false]);
    expect(p.cancelled()).toBe(1);
  });
});

describe('devices commands', () => {
  const port = {
    listDevices: () => [
      {
        deviceId: 'dev0000000000001',
        label: 'phone',
        deliveryId: 'd',
        pairedAt: 0,
        lastSeenAt: null,
        connected: true,
      },
    ],
    revokeDevice: async (id: string) => ({
      revoked: id === 'dev0000000000001',
      closed: 1,
      deliveryRevoked: true,
    }),
  };

  it('lists as a table and as JSON (no secrets, no delivery id)', async () => {
    const out: string[] = [];
    await devicesCommand({ json: true }, port, (s) => out.push(s));
    expect(JSON.parse(out[0]!)).toEqual([
      {
        deviceId: 'dev0000000000001',
        label: 'phone',
        pairedAt: 0,
        lastSeenAt: null,
        connected: true,
        subscribed: null,
        subscriptionUpdatedAt: null,
      },
    ]);
    out.length = 0;
    await devicesCommand({ json: false }, port, (s) => out.push(s));
    expect(out[1]).toContain('connected now');
    expect(out[1]).toContain('unknown');
  });

  it('revokes by id and explains unknown or malformed ids', async () => {
    const out: string[] = [];
    expect(await revokeCommand('dev0000000000001', port, (s) => out.push(s))).toBe(0);
    expect(out[0]).toBe('Revoked dev0000000000001; closed 1 live connection.');
    expect(await revokeCommand('dev0000000000002', port, (s) => out.push(s))).toBe(1);
    expect(await revokeCommand('../etc', port, (s) => out.push(s))).toBe(2);
  });
});
