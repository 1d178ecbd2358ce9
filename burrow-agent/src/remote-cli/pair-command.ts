/**
 * `burrow pair [--label <name>] [--yes]` (DESIGN §4.2, §6): show the link and QR, wait for a phone, show the
 * 6-digit code and ask the owner to compare it (y/N; `--yes` accepts without asking, for scripts), then say
 * how it ended. Runs in the CLI process; `port` reaches the daemon's RemoteService over the control socket.
 */
import type { PairingResult, PairRequest } from '../remote/remote-endpoint.js';
import type { PairingStarted } from '../remote/remote-service.js';

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

/** Sanitized for the terminal: the label and platform come from the phone. */
function plain(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2060-\u2069]/g, '')
    .slice(0, 64);
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
      io.print(`Code: ${request.code}   — check that the phone shows the same code.`);
      if (args.yes) return true;
      return io.confirm('Does the phone show this code? [y/N] ');
    },
    done: (r) => finish(r),
  });
  io.print(started.qr);
  io.print(
    `Open this link on your phone (it works once, until ${new Date(started.expiresAt).toLocaleTimeString()}):`,
  );
  io.print(started.link);
  io.print('Keep this link private: anyone who opens it before you can ask to pair.');
  const expiry = new Promise<PairingResult>((r) =>
    setTimeout(
      () => r({ outcome: 'timeout', message: 'the link expired' }),
      Math.max(0, started.expiresAt - Date.now()),
    ).unref(),
  );
  const result = await Promise.race([finished, expiry]);
  if (result.outcome === 'paired') {
    io.print(`Paired "${plain(result.label)}" (device ${result.deviceId}).`);
    return 0;
  }
  port.cancelPairing();
  io.print(`Not paired: ${result.message}.`);
  return 1;
}
