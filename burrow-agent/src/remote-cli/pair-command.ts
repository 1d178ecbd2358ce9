/**
 * `burrow pair [--label <name>] [--yes]` (DESIGN §4.2, §6): show the link and QR, wait for a phone, show the
 * 6-digit code and ask the owner to compare it (y/N; `--yes` accepts without asking, for scripts), then say
 * how it ended. Runs in the CLI process; `port` reaches the daemon's RemoteService over the control socket.
 */

import { pairingQrText } from '../pairing/pairing-link.js';
import type { PairingResult, PairRequest } from '../remote/remote-endpoint.js';
import type { PairingStarted } from '../remote/remote-service.js';
import { printable } from '../text/printable.js';

export interface PairArgs {
  readonly label: string | null;
  readonly yes: boolean;
}

export interface PairingPort {
  startPairing(options: {
    label: string | null;
    approve: (r: PairRequest) => Promise<boolean>;
    done: (r: PairingResult) => void;
  }): Promise<PairingStarted>;
  cancelPairing(): void;
}

export interface PairIo {
  print(text: string): void;
  /** Asks a yes/no question; resolves false on anything but y / yes. */
  confirm(question: string): Promise<boolean>;
}

/** Shown, never interpreted: the label and platform come from the phone, messages from the relay. */
const plain = (text: string) => printable(text, 64);

/** Hosts only this computer can reach: a phone cannot open a link to them. */
const LOOPBACK_HOST = /^(?:127(?:\.\d{1,3}){3}|localhost|\[::1\])$/i;

export function isLoopbackLink(link: string): boolean {
  try {
    return LOOPBACK_HOST.test(new URL(link).hostname);
  } catch {
    return false;
  }
}

/**
 * How to use the link, honestly (issue 17 item 5): a link to a loopback relay opens only in a browser on this
 * computer; a phone pairs through a relay it can reach (README "Pair a real phone").
 */
export function pairingInstructions(link: string, expiresAt: number): string[] {
  const until = new Date(expiresAt).toLocaleTimeString();
  if (!isLoopbackLink(link))
    return [`Open this link on your phone, or scan the QR code (it works once, until ${until}):`];
  const host = new URL(link).host;
  return [
    `This link points at ${host}, which only this computer can reach: open it in a browser here (it works`,
    `once, until ${until}). A phone cannot open it, nor the QR code. To pair a real phone, use a relay the`,
    'phone can reach — a deployed relay (relay-worker/README.md), or this development relay through an HTTPS',
    'tunnel — enrolled with `burrow enroll --relay https://…`; README "Pair a real phone" says how.',
  ];
}

/** Resolves with the exit status: 0 paired, 1 declined / timed out / failed. */
export async function pairCommand(args: PairArgs, port: PairingPort, io: PairIo): Promise<number> {
  let finish!: (r: PairingResult) => void;
  const finished = new Promise<PairingResult>((r) => {
    finish = r;
  });
  const started = await port.startPairing({
    label: args.label,
    approve: async (request) => {
      io.print(
        `\nA phone wants to pair: "${plain(request.label)}" (${plain(request.platform) || 'unknown platform'})`,
      );
      io.print(`Code: ${plain(String(request.code))}   — check that the phone shows the same code.`);
      if (args.yes) return true;
      return io.confirm('Does the phone show this code? [y/N] ');
    },
    done: (r) => finish(r),
  });
  // Drawn here from the link (not taken from the daemon as terminal bytes): 4-module quiet zone.
  io.print(pairingQrText(started.link));
  for (const line of pairingInstructions(started.link, started.expiresAt)) io.print(line);
  io.print(printable(started.link, 2048));
  io.print('Keep this link private: anyone who opens it before you can ask to pair.');
  const expiry = new Promise<PairingResult>((r) =>
    setTimeout(
      () => r({ outcome: 'timeout', message: 'the link expired' }),
      Math.max(0, started.expiresAt - Date.now()),
    ).unref(),
  );
  const result = await Promise.race([finished, expiry]);
  if (result.outcome === 'paired') {
    io.print(`Paired "${plain(result.label)}" (device ${plain(result.deviceId)}).`);
    return 0;
  }
  port.cancelPairing();
  io.print(`Not paired: ${printable(result.message, 256)}.`);
  return 1;
}
