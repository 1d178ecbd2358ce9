/** Shared test helpers: a recording viewer, polling, and a reference terminal to replay snapshots into. */
import xtermHeadless from '@xterm/headless';
import type { Logger } from '../src/session/activity.js';
import type { ViewerEvent, ViewerKind, ViewerSink } from '../src/viewer/viewer.js';

export const quietLog: Logger = () => {};

/** Polls `check` every 20 ms until it returns true or `timeoutMs` passes (then throws with `what`). */
export async function until(what: string, check: () => boolean, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A viewer that records everything and whose backlog the test controls. */
export class RecordingViewer implements ViewerSink {
  readonly events: ViewerEvent[] = [];
  fakeBacklog = 0;
  closed: string | null = null;
  constructor(
    readonly id: string,
    readonly kind: ViewerKind = 'local',
    /** The viewer across connections (size authority); absent: this attachment alone. */
    readonly identity?: string,
  ) {}
  backlog(): number {
    return this.fakeBacklog;
  }
  deliver(event: ViewerEvent): void {
    this.events.push(event);
  }
  close(reason: string): void {
    this.closed = reason;
  }
  /** Every output byte delivered, concatenated (checks that each event starts where the last ended). */
  bytes(): Buffer {
    const out: Buffer[] = [];
    let next = -1;
    for (const e of this.events) {
      if (e.type === 'snapshot') next = e.snapshot.offset;
      if (e.type !== 'output') continue;
      if (next !== -1 && e.offset !== next) throw new Error(`output at ${e.offset}, expected ${next}`);
      next = e.offset + e.data.byteLength;
      out.push(Buffer.from(e.data));
    }
    return Buffer.concat(out);
  }

  /** Output bytes delivered since the last snapshot, with the stream offset they start at. */
  text(): string {
    return Buffer.concat(
      this.events
        .filter((e) => e.type === 'output')
        .map((e) => Buffer.from((e as { data: Uint8Array }).data)),
    ).toString('utf8');
  }
}

/** Replays `data` into a fresh terminal of the given size and returns it once parsed. */
export async function replay(data: string | Uint8Array, cols: number, rows: number, scrollback = 20_000) {
  const term = new xtermHeadless.Terminal({ cols, rows, scrollback, allowProposedApi: true });
  await new Promise<void>((r) => term.write(data, r));
  return term;
}

/** The visible rows of a terminal, right-trimmed. */
export function screenLines(term: InstanceType<typeof xtermHeadless.Terminal>): string[] {
  const b = term.buffer.active;
  const out: string[] = [];
  for (let y = 0; y < term.rows; y++) out.push(b.getLine(b.viewportY + y)?.translateToString(true) ?? '');
  return out;
}
