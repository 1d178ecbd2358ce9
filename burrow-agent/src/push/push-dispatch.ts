/**
 * Sends one push through whatever `PushSender` the current enrollment gives, and remembers how the last sends
 * went, so `burrow status` can surface zero / partial delivery and gone subscriptions (alert-spec "Push
 * notifications": failures are warned, never thrown, never retried). Every warning is also logged.
 */
import type { PushRequest, PushSender, PushSendReport } from './push-sender.js';

/** Warnings kept for `burrow status`, newest last. */
export const MAX_PUSH_WARNINGS = 8;

export interface PushWarning {
  readonly at: number;
  readonly text: string;
}

export interface LastPush {
  readonly at: number;
  readonly reason: PushRequest['reason'];
  readonly outcome: PushSendReport['outcome'];
  readonly targets: number;
  readonly delivered: number;
}

export interface PushDispatchOptions {
  /** The sender for the current enrollment; null when not enrolled. Read at every send. */
  readonly sender: () => PushSender | null;
  readonly log: (line: string) => void;
  readonly now: () => number;
}

/** The words for a send that did not reach every device; null when it did. Ids only, never content. */
export function pushWarningFor(report: PushSendReport): string | null {
  const parts: string[] = [];
  if (report.relayError !== null) parts.push(report.relayError.message);
  if (report.outcome === 'zero_delivered') parts.push(`delivered to none of ${report.targets} devices`);
  if (report.outcome === 'partial')
    parts.push(`delivered to ${report.delivered} of ${report.targets} devices`);
  if (report.outcome === 'no_subscriptions') parts.push('no paired device has push turned on');
  if (report.gone.length > 0)
    parts.push(`${report.gone.length} subscription(s) gone (the phone must re-enable)`);
  if (report.failed.length > 0 && report.relayError === null)
    parts.push(`${report.failed.length} push service failure(s)`);
  if (report.dropped > 0) parts.push(`${report.dropped} device(s) over the per-push limit were skipped`);
  return parts.length === 0 ? null : parts.join('; ');
}

export class PushDispatch {
  readonly #o: PushDispatchOptions;
  readonly #warnings: PushWarning[] = [];
  #last: LastPush | null = null;

  constructor(options: PushDispatchOptions) {
    this.#o = options;
  }

  /** null when not enrolled (nothing was attempted). */
  async send(request: PushRequest): Promise<PushSendReport | null> {
    const sender = this.#o.sender();
    if (sender === null) return null;
    const report = await sender.send(request);
    const at = this.#o.now();
    this.#last = {
      at,
      reason: request.reason,
      outcome: report.outcome,
      targets: report.targets,
      delivered: report.delivered,
    };
    const warning = pushWarningFor(report);
    if (warning !== null && report.outcome !== 'no_devices') {
      this.#o.log(`push (${request.reason}, session ${request.sessionId}): ${warning}`);
      this.#warnings.push({ at, text: warning });
      if (this.#warnings.length > MAX_PUSH_WARNINGS) this.#warnings.shift();
    }
    return report;
  }

  get last(): LastPush | null {
    return this.#last;
  }

  get warnings(): readonly PushWarning[] {
    return [...this.#warnings];
  }
}
