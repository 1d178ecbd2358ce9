/**
 * Classifies what the relay reported for one push send, for the Burrow's warnings and `burrow push test`
 * (alert-spec "Push notifications": warn on non-2xx, partial, or zero delivery; never retry). The outcome
 * names agree with the remote API's `push-test-result` (protocol R-B-PUSH-2).
 */
import type { PushTargetResult, PushTestOutcome } from '@burrow/protocol';

export interface PushOutcomeSummary {
  readonly outcome: PushTestOutcome;
  /** Devices an envelope was sealed for (after clamping). */
  readonly targets: number;
  readonly delivered: number;
  /** deliveryIds whose subscription the push service reported gone (the relay deleted it). */
  readonly gone: readonly string[];
  readonly noSubscription: readonly string[];
  /** deliveryIds the push failed for (the relay says only that, never the push service's status: RL-PUSH-2). */
  readonly failed: readonly string[];
}

/**
 * `targets` is what was sent; `results` what the relay answered (null when the relay call itself failed, so
 * nothing is known to be delivered). A target the relay did not answer for counts as failed.
 */
export function classifyPushOutcome(
  targetIds: readonly string[],
  results: readonly PushTargetResult[] | null,
): PushOutcomeSummary {
  const byId = new Map((results ?? []).map((r) => [r.deliveryId, r]));
  const gone: string[] = [];
  const noSubscription: string[] = [];
  const failed: string[] = [];
  let delivered = 0;
  for (const deliveryId of targetIds) {
    const r = byId.get(deliveryId);
    if (r === undefined) failed.push(deliveryId);
    else if (r.outcome === 'accepted') delivered++;
    else if (r.outcome === 'gone') gone.push(deliveryId);
    else if (r.outcome === 'no_subscription') noSubscription.push(deliveryId);
    else if (r.outcome === 'failed') failed.push(deliveryId);
  }
  const targets = targetIds.length;
  let outcome: PushTestOutcome;
  if (targets === 0) outcome = 'no_devices';
  else if (delivered === targets) outcome = 'delivered';
  else if (delivered > 0) outcome = 'partial';
  else if (results !== null && noSubscription.length === targets) outcome = 'no_subscriptions';
  else outcome = 'zero_delivered';
  return { outcome, targets, delivered, gone, noSubscription, failed };
}
