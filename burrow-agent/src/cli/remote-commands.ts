/**
 * `burrow enroll`, `pair`, `devices` and `push test` (DESIGN §3, §4.2, §6). Each reaches the daemon's
 * RemoteService over the control socket; only `enroll` also works without a daemon (it then writes the state
 * file itself, and the daemon picks it up when it starts).
 */
import { createInterface } from 'node:readline/promises';
import type { ControlClient } from '../control/control-client.js';
import type { DeviceRowResult } from '../control/control-messages.js';
import type { PushTestResult } from '../daemon/daemon-verbs.js';
import type { PairingResult } from '../remote/remote-endpoint.js';
import type { PairingStarted } from '../remote/remote-service.js';
import type { PairingPort } from '../remote-cli/pair-command.js';
import { openStateStore } from '../state/burrow-state.js';
import { ensureOwnerOnlyDir } from '../state/state-dir.js';
import { printable, printableJson } from '../text/printable.js';
import type { Command, Invocation } from './commands.js';
import { asCliError, connectDaemon, stateDirOf } from './daemon-connection.js';
import { CliError, ExitCode } from './exit-codes.js';

const json = { json: { type: 'boolean', default: false } } as const;

/** Environment variable read for the relay's operator secret when --secret is not given (keeps it out of ps). */
export const RELAY_SECRET_ENV = 'BURROW_RELAY_SECRET';

function print(inv: Invocation): (s: string) => void {
  return (s) => inv.io.stdout.write(s.endsWith('\n') ? s : `${s}\n`);
}

async function withDaemon<T>(inv: Invocation, fn: (c: ControlClient) => Promise<T>): Promise<T> {
  const client = await connectDaemon(inv.io.env);
  try {
    return await fn(client);
  } catch (err) {
    throw asCliError(err);
  } finally {
    client.close();
  }
}

async function daemonOrNull(inv: Invocation): Promise<ControlClient | null> {
  try {
    return await connectDaemon(inv.io.env);
  } catch (err) {
    if (err instanceof CliError && err.exitCode === ExitCode.DaemonNotRunning) return null;
    throw err;
  }
}

/** Pairing over the control socket: the daemon holds the offer; this process only asks the owner. */
function pairingPort(client: ControlClient): PairingPort {
  return {
    async startPairing({ label, approve, done }) {
      let finished = false;
      const finish = (r: PairingResult) => {
        if (finished) return;
        finished = true;
        done(r);
      };
      const started = await client.pair(
        { label },
        {
          event(e) {
            if (e.event === 'pair-request') {
              void approve(e).then((accept) => client.send({ type: 'pair-answer', accept }));
            } else if (e.event === 'pair-done') {
              finish(
                e.outcome === 'paired'
                  ? { outcome: 'paired', deviceId: e.deviceId ?? '', label: e.label ?? '' }
                  : { outcome: e.outcome, message: e.message },
              );
            }
          },
          end: () => finish({ outcome: 'failed', message: 'the daemon closed the connection' }),
        },
      );
      return started as PairingStarted;
    },
    // Closing the connection is the cancel: the daemon withdraws the offer when its CLI goes away.
    cancelPairing: () => client.close(),
  };
}

function confirmOn(inv: Invocation) {
  return async (question: string): Promise<boolean> => {
    const rl = createInterface({
      input: inv.io.stdin,
      output: inv.io.stdout,
      terminal: inv.io.stdin.isTTY === true,
    });
    const closed = new Promise<string>((resolve) => rl.once('close', () => resolve('')));
    try {
      const answer = await Promise.race([rl.question(question), closed]);
      return /^y(es)?$/i.test(answer.trim());
    } finally {
      rl.close();
    }
  };
}

const PUSH_WORDS: Readonly<Record<PushTestResult['outcome'], string>> = {
  no_devices: 'No paired devices: pair one with `burrow pair` first.',
  no_subscriptions: 'No paired device has notifications turned on: enable them in Pocket.',
  zero_delivered: 'The push reached none of your devices.',
  partial: 'The push reached some of your devices, not all.',
  delivered: 'Sent: every device with notifications on should show it now.',
};

export const REMOTE_COMMANDS: readonly Command[] = [
  {
    name: 'enroll',
    summary: 'register this Burrow at a relay (once, before pairing)',
    usage: 'burrow enroll --relay URL [--secret SECRET] [--json]',
    details:
      `The relay's operator secret, if it asks for one, may also come from $${RELAY_SECRET_ENV}.\n` +
      'Enrolling again makes a new identity at the relay: paired phones must pair again.',
    options: { relay: { type: 'string' }, secret: { type: 'string' }, ...json },
    positionals: [0, 0],
    async run(inv) {
      const relayUrl = inv.values.relay;
      if (typeof relayUrl !== 'string') throw new CliError(ExitCode.Usage, '--relay URL is required');
      const secretOpt = inv.values.secret;
      const envSecret = inv.io.env[RELAY_SECRET_ENV];
      const secret = typeof secretOpt === 'string' ? secretOpt : envSecret ? envSecret : null;
      const client = await daemonOrNull(inv);
      let r: { burrowId: string; relayUrl: string };
      try {
        if (client !== null) {
          r = (await client.request('enroll', { relayUrl, secret })) as typeof r;
        } else {
          const stateDir = stateDirOf(inv.io.env);
          ensureOwnerOnlyDir(stateDir);
          const { enrollCommand } = await import('../remote-cli/enroll-command.js');
          r = await enrollCommand({ relayUrl, secret }, openStateStore(stateDir));
        }
      } catch (err) {
        throw asCliError(err);
      } finally {
        client?.close();
      }
      const via = client !== null ? 'the daemon is connecting now' : 'start the daemon to connect';
      // The id comes from the relay: shown, never interpreted (printable.ts).
      print(inv)(
        inv.values.json
          ? printableJson(r)
          : `Enrolled at ${printable(r.relayUrl, 256)} as ${printable(r.burrowId, 64)}; ${via}.`,
      );
      return ExitCode.Ok;
    },
  },
  {
    name: 'pair',
    summary: 'pair a phone: show a link and QR, then compare the 6-digit code',
    usage: 'burrow pair [--label NAME] [--yes]',
    details:
      'Waits for a phone to open the link, then shows its code and label and asks y/N (--yes accepts without\n' +
      'asking). Ctrl-C withdraws the link at once. Exit 0 when paired, 1 when declined, expired or failed.',
    options: { label: { type: 'string' }, yes: { type: 'boolean', short: 'y', default: false } },
    positionals: [0, 0],
    async run(inv) {
      const label = typeof inv.values.label === 'string' ? inv.values.label : null;
      const { pairCommand } = await import('../remote-cli/pair-command.js');
      return withDaemon(inv, (client) =>
        pairCommand({ label, yes: inv.values.yes === true }, pairingPort(client), {
          print: print(inv),
          confirm: confirmOn(inv),
        }),
      );
    },
  },
  {
    name: 'devices',
    summary: 'list paired phones, or revoke one',
    usage: 'burrow devices [--json] | burrow devices revoke DEVICE',
    details: 'PUSH says whether the relay holds a notification subscription for the phone, and since when.',
    options: { ...json },
    positionals: [0, 2],
    async run(inv) {
      const [verb, id] = inv.positionals;
      if (verb !== undefined && (verb !== 'revoke' || id === undefined))
        throw new CliError(ExitCode.Usage, 'usage: burrow devices [--json] | burrow devices revoke DEVICE');
      const { devicesCommand, revokeCommand } = await import('../remote-cli/devices-command.js');
      return withDaemon(inv, async (client) => {
        const port = {
          listDevices: async () => {
            const r = (await client.request('devices', {})) as {
              devices: DeviceRowResult[];
              relayError: string | null;
            };
            if (r.relayError !== null && r.devices.length > 0 && !inv.values.json)
              inv.io.stderr.write(`burrow devices: push state unknown: ${printable(r.relayError, 512)}\n`);
            return r.devices;
          },
          revokeDevice: async (deviceId: string) =>
            (await client.request('devices-revoke', { deviceId })) as {
              revoked: boolean;
              closed: number;
              deliveryRevoked: boolean;
            },
        };
        if (id !== undefined) return revokeCommand(id, port, print(inv));
        return devicesCommand({ json: inv.values.json === true }, port, print(inv));
      });
    },
  },
  {
    name: 'push',
    summary: 'send a test notification to every paired phone',
    usage: 'burrow push test [--json]',
    details:
      'Exit 0 when every device with notifications on got it; 1 otherwise (the message says which case).',
    options: { ...json },
    positionals: [1, 1],
    async run(inv) {
      if (inv.positionals[0] !== 'test')
        throw new CliError(ExitCode.Usage, 'usage: burrow push test [--json]');
      const r = (await withDaemon(inv, (c) => c.request('push-test', {}))) as PushTestResult;
      if (inv.values.json) print(inv)(printableJson(r));
      else {
        const extra = [
          r.outcome === 'partial' || r.outcome === 'zero_delivered'
            ? `${r.delivered} of ${r.targets} delivered`
            : '',
          r.gone > 0 ? `${r.gone} subscription(s) gone` : '',
          r.relayError ? `relay: ${printable(r.relayError, 512)}` : '',
        ].filter((x) => x !== '');
        print(inv)([PUSH_WORDS[r.outcome], ...extra].join('\n'));
      }
      return r.outcome === 'delivered' ? ExitCode.Ok : ExitCode.Failure;
    },
  },
];
